package replay_test

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// TestLoopOnTheBubblesClock runs record → serve back → replay on an
// in-memory network under testing/synctest, where every wait lasts exactly
// as long as it says: the recording holds the fixture's times to the
// microsecond, a served recording gives a client the recorded TTFT and gaps
// at --speed 1 and, divided by 2, at --speed 2, and a replay against the
// served recording reads the recorded figures again.
func TestLoopOnTheBubblesClock(t *testing.T) {
	t.Parallel()
	for _, format := range []string{"openai-chat", "anthropic", "bedrock-converse"} {
		t.Run(format, func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) { testLoopInBubble(t, format) })
		})
	}
}

func testLoopInBubble(t *testing.T, format string) {
	up := memnet.NewServer(fixtures.NewServer())
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var recs []*record.Record
	p := relay.New(context.Background(), relay.Options{Upstream: u, Client: up.Client()}, func(r *record.Record) error { recs = append(recs, r); return nil })
	proxy := memnet.NewServer(p)
	defer proxy.Close()

	tgt := probe.Target{URL: endpoint(proxy.URL, format, "mid-sentence-stall"), Format: adapters.Lookup(format), Request: adapters.Request{Model: "mid-sentence-stall", Prompt: "hi"}}
	client := probe.Stream(context.Background(), tgt, probe.Options{Dial: proxy.Dial}, &record.Record{}, nil)
	p.Wait()
	if len(recs) != 1 || client.Status != record.StatusComplete {
		t.Fatalf("%d records, client %s (%+v)", len(recs), client.Status, client.Error)
	}
	rec := recs[0]
	sc := fixtures.Lookup("mid-sentence-stall")
	if first := firstContentAt(sc); *rec.TTFTMS != first || *client.TTFTMS != first {
		t.Errorf("TTFT recorded %v, client %v; the fixture wrote the first word at %v ms", *rec.TTFTMS, *client.TTFTMS, first)
	}
	if !slices.Equal(rec.Gaps(), client.Gaps()) || rec.Text() != client.Text() {
		t.Errorf("the record differs from what the client saw: gaps %v vs %v, text %q vs %q", rec.Gaps(), client.Gaps(), rec.Text(), client.Text())
	}

	for _, speed := range []float64{1, 2} {
		srv, err := fixtures.NewRecorded(recs, fixtures.RecordedOptions{Speed: speed})
		if err != nil {
			t.Fatal(err)
		}
		served := memnet.NewServer(srv)
		got := probe.Stream(context.Background(), probe.Target{URL: endpoint(served.URL, format, "mid-sentence-stall"), Format: adapters.Lookup(format),
			Request: adapters.Request{Model: "mid-sentence-stall", Prompt: "hi"}}, probe.Options{Dial: served.Dial}, &record.Record{}, nil)
		if got.TTFTMS == nil || *got.TTFTMS != *rec.TTFTMS/speed {
			t.Errorf("speed %g: served TTFT %v, want %v", speed, got.TTFTMS, *rec.TTFTMS/speed)
		}
		want := rec.Gaps()
		for i := range want {
			want[i] /= speed
		}
		if !slices.Equal(got.Gaps(), want) || got.Text() != rec.Text() {
			t.Errorf("speed %g: served gaps %v, want %v; text %q, want %q", speed, got.Gaps(), want, got.Text(), rec.Text())
		}

		var replayed []*record.Record
		replay.Run(context.Background(), replay.Streams(recs), replay.Options{Against: served.URL, Probe: probe.Options{Dial: served.Dial}}, func(r *record.Record) {
			replayed = append(replayed, r)
		})
		if len(replayed) != 1 || replayed[0].TTFTMS == nil || *replayed[0].TTFTMS != *rec.TTFTMS/speed || replayed[0].Status != record.StatusComplete {
			t.Errorf("speed %g: replay against the served recording: %+v", speed, replayed)
		}
		served.Close()
	}
}

// firstContentAt is when a scenario writes its first content, in ms.
func firstContentAt(sc *fixtures.Scenario) float64 {
	for _, s := range sc.Steps {
		if s.Kind.IsContent() {
			return float64(s.At) / 1e6
		}
	}
	return -1
}

var _ http.Handler = (*relay.Proxy)(nil)

// A stream recorded as canceled (its client went away 400 ms in) is
// replayed and hung up 400 ms in: the replay holds the same partial stream,
// not a whole answer the recording never had.
func TestReplayHangsUpWhereTheRecordedClientDid(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(fixtures.NewServer())
		defer up.Close()
		orig := recordedChat("steady", 400, record.StatusCanceled)
		orig.Error = &record.Error{Class: record.ErrCanceled, Message: "the client closed the connection"}
		r := replayOne(t, up, up.URL, orig)
		ttft := "null"
		if r.TTFTMS != nil {
			ttft = fmt.Sprint(*r.TTFTMS)
		}
		if r.Status != record.StatusCanceled || r.DurationMS != 400 || ttft != "180" || r.Error == nil || !strings.Contains(r.Error.Message, "hung up where the recorded stream was") {
			t.Errorf("replayed %s after %v ms, ttft %s, error %+v; want canceled at 400 ms as recorded, ttft 180, saying why", r.Status, r.DurationMS, ttft, r.Error)
		}
	})
}

// A recording replayed against a server that answers in another format
// (here OpenAI chat requests answered as Anthropic) cannot be decoded as
// recorded: the replayed stream says so, naming both formats, instead of
// ending incomplete with no reason.
func TestReplayInAnotherFormatSaysWhichTheServerSpoke(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(fixtures.NewServer())
		defer up.Close()
		orig := recordedChat("fast", 100, record.StatusComplete)
		r := replayOne(t, up, up.URL+"/?format=anthropic", orig)
		if r.Status != record.StatusFailed || r.Error == nil || r.Error.Class != record.ErrDecode ||
			!strings.Contains(r.Error.Message, "answered in anthropic, not in openai-chat as recorded") {
			t.Errorf("replayed %s, error %+v; want failed, class decode, naming anthropic and openai-chat", r.Status, r.Error)
		}
	})
}

// A replayed stream in the recorded format that ends incomplete for its
// own reason stays incomplete, whatever its first event looked like:
// Azure's first chunk (prompt_filter_results, no choices) bears no mark of
// OpenAI chat, and the stream was relabelled failed, "answered in sse".
func TestReplayEndingIncompleteInTheRecordedFormatStaysIncomplete(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprint(w, `data: {"choices":[],"created":0,"id":"","model":"","object":"","prompt_filter_results":[{"prompt_index":0,"content_filter_results":{}}]}`+"\n\n")
			fmt.Fprint(w, `data: {"choices":[{"index":0,"delta":{"content":"Hi"}}],"id":"c1","object":"chat.completion.chunk"}`+"\n\n")
			// and no finish_reason, no [DONE]: the server closed early
		}))
		defer up.Close()
		orig := recordedChat("m", 100, record.StatusComplete)
		r := replayOne(t, up, up.URL, orig)
		if r.Status != record.StatusIncomplete || r.Error != nil || r.TTFTMS == nil {
			t.Errorf("replayed %s, error %+v, ttft %s; want incomplete, no error, its content read", r.Status, r.Error, fmtPtr(r.TTFTMS))
		}
	})
}

// The side detector reads the replayed response's Content-Type as drip
// record reads the recorded one's: an answer typed NDJSON is named so even
// when its first line is no JSON, where its bytes alone read as raw.
func TestReplayInAnotherFormatReadsTheResponsesType(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		up := memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "application/x-ndjson")
			fmt.Fprint(w, "hello\n")
		}))
		defer up.Close()
		orig := recordedChat("m", 100, record.StatusComplete)
		r := replayOne(t, up, up.URL, orig)
		if r.Error == nil || !strings.Contains(r.Error.Message, "answered in ndjson, not in openai-chat") {
			t.Errorf("replayed %s, error %+v; want the server named as answering in ndjson", r.Status, r.Error)
		}
	})
}

// recordedChat is a recorded OpenAI chat stream asking for model, that
// lasted ms and ended with status.
func recordedChat(model string, ms float64, status string) *record.Record {
	x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, ContentType: "text/event-stream"}
	x.SetBody([]byte(`{"model":"` + model + `","stream":true}`))
	return &record.Record{Phase: record.PhaseMeasure, Format: "openai-chat", Model: model, Exchange: x, DurationMS: ms, Status: status}
}

// replayOne replays orig against the URL up serves and returns the one
// replayed stream.
func replayOne(t *testing.T, up *memnet.Server, against string, orig *record.Record) *record.Record {
	t.Helper()
	var replayed []*record.Record
	replay.Run(context.Background(), []*record.Record{orig}, replay.Options{Against: against, Probe: probe.Options{Dial: up.Dial}}, func(r *record.Record) {
		replayed = append(replayed, r)
	})
	if len(replayed) != 1 {
		t.Fatalf("%d replayed, want 1", len(replayed))
	}
	return replayed[0]
}
