package probe_test

import (
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// inBubble runs f under testing/synctest with the fixture server on an
// in-memory network: the scenarios' waits pass on the bubble's clock, so
// every time the probe stamps is the schedule's, whatever the load.
func inBubble(t *testing.T, f func(t *testing.T, srv *memnet.Server)) {
	t.Helper()
	serveInBubble(t, fixtures.NewServer(), f)
}

// serveInBubble is inBubble serving h.
func serveInBubble(t *testing.T, h http.Handler, f func(t *testing.T, srv *memnet.Server)) {
	t.Helper()
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.NewServer(h)
		defer srv.Close()
		f(t, srv)
	})
}

// streamScenario runs one scenario of the in-memory fixture server through
// the probe.
func streamScenario(t *testing.T, srv *memnet.Server, scenario string, o probe.Options) *record.Record {
	t.Helper()
	u, f, err := probe.ResolveURL(srv.URL, "auto")
	if err != nil {
		t.Fatal(err)
	}
	o.Dial = srv.Dial
	tgt := probe.Target{URL: u, Format: f, Request: adapters.Request{Model: scenario, Prompt: "hi"}}
	return probe.Stream(context.Background(), tgt, o, &record.Record{}, nil)
}

// num prints a nullable figure as its value.
func num(v *float64) string { return textfmt.Num(v) }

func TestStreamScenarios(t *testing.T) {
	for _, c := range []struct {
		scenario string
		status   string
		class    string
		check    func(t *testing.T, r *record.Record)
	}{
		{"steady", record.StatusComplete, "", func(t *testing.T, r *record.Record) {
			sc := fixtures.Lookup("steady")
			if r.OutputTokens != sc.OutputTokens() || r.TokensSource != "usage" {
				t.Errorf("tokens %d (%s), want %d from usage", r.OutputTokens, r.TokensSource, sc.OutputTokens())
			}
			if r.Buffered || r.ITLMS == nil {
				t.Errorf("steady stream: buffered %v itl %s", r.Buffered, num(r.ITLMS))
			}
		}},
		{"slow-first-token", record.StatusComplete, "", func(t *testing.T, r *record.Record) {
			// The role chunk and three keepalives come first; TTFT waits for content.
			if r.TTFTMS == nil || *r.TTFTMS != 2000 {
				t.Errorf("ttft %s, want 2000 (role chunk and pings are not content)", num(r.TTFTMS))
			}
			if r.FirstEventMS == nil || *r.FirstEventMS != 30 {
				t.Errorf("first event %s, want the role chunk at 30", num(r.FirstEventMS))
			}
			pings := 0
			for _, f := range r.Frames {
				if f.Kind == adapters.KindPing {
					pings++
				}
			}
			if pings != 3 {
				t.Errorf("pings = %d, want 3", pings)
			}
		}},
		{"buffered-burst", record.StatusComplete, "", func(t *testing.T, r *record.Record) {
			if !r.Buffered || r.ITLMS != nil || r.TPSUser != nil {
				t.Errorf("buffered %v itl %s tps %s: want flagged and withheld", r.Buffered, num(r.ITLMS), num(r.TPSUser))
			}
			if r.CoalescedFrames < 2 {
				t.Errorf("coalesced = %d", r.CoalescedFrames)
			}
		}},
		{"abort-midstream", record.StatusFailed, record.ErrReset, func(t *testing.T, r *record.Record) {
			if r.ContentFrames != 12 {
				t.Errorf("partial timeline has %d content frames, want 12", r.ContentFrames)
			}
		}},
		{"no-end-marker", record.StatusIncomplete, "", func(t *testing.T, r *record.Record) {
			if r.E2EMS != nil || r.TTFTMS == nil {
				t.Errorf("incomplete: e2e %s (want null), ttft %s (want kept)", num(r.E2EMS), num(r.TTFTMS))
			}
		}},
		{"rate-limited", record.StatusFailed, record.ErrHTTP429, func(t *testing.T, r *record.Record) {
			if r.Error.RetryAfter != "2" || r.HTTPStatus != 429 || r.TTFTMS != nil {
				t.Errorf("429: retry-after %q status %d ttft %s", r.Error.RetryAfter, r.HTTPStatus, num(r.TTFTMS))
			}
		}},
		{"in-stream-error", record.StatusFailed, record.ErrInStream, func(t *testing.T, r *record.Record) {
			if r.ContentFrames != 8 || r.TTFTMS == nil {
				t.Errorf("partial timeline: %d content frames, ttft %s", r.ContentFrames, num(r.TTFTMS))
			}
		}},
		{"multi-token", record.StatusComplete, "", func(t *testing.T, r *record.Record) {
			if r.TokensPerFrame == nil || *r.TokensPerFrame < 3 {
				t.Errorf("tokens per frame %s, want ~4", num(r.TokensPerFrame))
			}
		}},
		{"reasoning", record.StatusComplete, "", func(t *testing.T, r *record.Record) {
			if r.TTFTMS == nil || r.TTFOMS == nil || *r.TTFOMS-*r.TTFTMS < 200 {
				t.Errorf("ttft %s ttfo %s: want the answer well after the reasoning", num(r.TTFTMS), num(r.TTFOMS))
			}
		}},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			inBubble(t, func(t *testing.T, srv *memnet.Server) {
				r := streamScenario(t, srv, c.scenario, probe.Options{})
				if r.Status != c.status {
					t.Fatalf("status %s (error %s), want %s", r.Status, errString(r.Error), c.status)
				}
				if c.class != "" && (r.Error == nil || r.Error.Class != c.class) {
					t.Fatalf("error %s, want class %s", errString(r.Error), c.class)
				}
				if r.Format != "openai-chat" || r.V != record.RecordVersion {
					t.Errorf("format %q v %d", r.Format, r.V)
				}
				c.check(t, r)
			})
		})
	}
}

// fakeClock advances by step on every reading, so times are exact.
type fakeClock struct {
	mu   sync.Mutex
	now  time.Time
	step time.Duration
}

func (c *fakeClock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(c.step)
	return c.now
}

// With an injected clock every read is stamped with the clock's reading
// when the read returned: the arithmetic is exact, whatever the machine.
func TestStreamStampsReadsWithInjectedClock(t *testing.T) {
	body := "data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\" there\"}}]}\n\n" +
		"data: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	clock := &fakeClock{now: time.Unix(0, 0), step: 10 * time.Millisecond}
	u, f, _ := probe.ResolveURL(srv.URL, "auto")
	r := probe.Stream(context.Background(), probe.Target{URL: u, Format: f}, probe.Options{Clock: clock.Now}, &record.Record{}, nil)
	if r.Status != record.StatusComplete {
		t.Fatalf("status %s %+v", r.Status, r.Error)
	}
	// Clock readings: start, headers (+10), first read (+20).
	if *r.HeadersMS != 10 || *r.FirstByteMS != 20 {
		t.Errorf("headers %v first byte %v, want 10 and 20", *r.HeadersMS, *r.FirstByteMS)
	}
	// The whole body arrived in one read: all frames share its time and index.
	for _, fr := range r.Frames {
		if fr.TMS != 20 || fr.Read != 0 {
			t.Errorf("frame %+v, want t 20 read 0", fr)
		}
	}
	if *r.TTFTMS != 20 || r.CoalescedFrames != 2 {
		t.Errorf("ttft %v coalesced %d", *r.TTFTMS, r.CoalescedFrames)
	}
}

// errString prints a record's error by value.
func errString(e *record.Error) string {
	if e == nil {
		return "none"
	}
	return fmt.Sprintf("%+v", *e)
}

func TestStreamCanceledKeepsPartialTimeline(t *testing.T) {
	inBubble(t, testStreamCanceledKeepsPartialTimeline)
}

func testStreamCanceledKeepsPartialTimeline(t *testing.T, srv *memnet.Server) {
	u, f, _ := probe.ResolveURL(srv.URL, "auto")
	ctx, cancel := context.WithCancel(context.Background())
	var once sync.Once
	observe := func(e probe.Event) {
		// Cancel once a few content frames have arrived.
		if e.Type == probe.EventFrames && e.Frames[len(e.Frames)-1].TMS > 0 {
			for _, fr := range e.Frames {
				if fr.IsContent() {
					once.Do(cancel)
				}
			}
		}
	}
	r := probe.Stream(ctx, probe.Target{URL: u, Format: f, Request: adapters.Request{Model: "long"}}, probe.Options{Dial: srv.Dial}, &record.Record{}, observe)
	if r.Status != record.StatusCanceled || r.Error.Class != record.ErrCanceled {
		t.Fatalf("status %s %s, want canceled", r.Status, errString(r.Error))
	}
	if r.ContentFrames == 0 || r.TTFTMS == nil {
		t.Errorf("partial timeline lost: %d content frames", r.ContentFrames)
	}
}

func TestStreamIdleTimeout(t *testing.T) {
	inBubble(t, func(t *testing.T, srv *memnet.Server) {
		// slow-first-token is silent for 500ms between keepalives.
		r := streamScenario(t, srv, "slow-first-token", probe.Options{IdleTimeout: 100 * time.Millisecond})
		if r.Status != record.StatusFailed || r.Error == nil || r.Error.Class != record.ErrTimeoutIdle {
			t.Fatalf("status %s %s, want timeout_idle", r.Status, errString(r.Error))
		}
		// The role chunk came at 30 ms; the timer fires 100 ms later.
		if r.DurationMS != 130 {
			t.Errorf("gave up after %v ms, want 130", r.DurationMS)
		}
	})
}

func TestStreamRefused(t *testing.T) {
	srv := httptest.NewServer(http.NotFoundHandler())
	url := srv.URL
	srv.Close()
	u, f, _ := probe.ResolveURL(url, "auto")
	r := probe.Stream(context.Background(), probe.Target{URL: u, Format: f}, probe.Options{}, &record.Record{}, nil)
	if r.Error == nil || r.Error.Class != record.ErrRefused || r.HeadersMS != nil {
		t.Fatalf("error %s headers %s, want refused and no headers", errString(r.Error), num(r.HeadersMS))
	}
}

// A request drip cannot build or sign is class request, with nothing
// sent: not a DNS failure, nor the server's 4xx.
func TestStreamRequestErrors(t *testing.T) {
	sent := 0
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { sent++ }))
	defer srv.Close()
	f := adapters.Lookup("openai-chat")
	signFails := func(*http.Request, []byte) error { return fmt.Errorf("no credentials") }
	// An array body cannot take --extra-body's fields.
	arrayBody := &adapters.Format{Name: "array", Body: func(adapters.Request) ([]byte, error) { return []byte("[1]"), nil }, NewDecoder: f.NewDecoder}
	for name, tgt := range map[string]probe.Target{
		"bad URL":        {URL: "http://bad host:x/v1?key=sk-secret", Format: f},
		"signing fails":  {URL: srv.URL, Format: f, Sign: signFails},
		"body not built": {URL: srv.URL, Format: arrayBody, Extra: map[string]json.RawMessage{"x": json.RawMessage("1")}},
	} {
		r := probe.Stream(context.Background(), tgt, probe.Options{}, &record.Record{}, nil)
		if r.Status != record.StatusFailed || r.Error == nil || r.Error.Class != record.ErrRequest {
			t.Errorf("%s: status %s error %s, want failed, class request", name, r.Status, errString(r.Error))
		} else if strings.Contains(r.Error.Message, "sk-secret") {
			t.Errorf("%s: message %q quotes the URL's key", name, r.Error.Message)
		}
	}
	if sent != 0 {
		t.Errorf("%d requests reached the server, want none", sent)
	}
}

// A burst larger than the read buffer's first size arrives whole: the
// buffer grows, and every frame of the burst is decoded.
func TestStreamReadsBurstPastTheFirstBuffer(t *testing.T) {
	var body strings.Builder
	for i := range 500 {
		fmt.Fprintf(&body, "data: {\"choices\":[{\"delta\":{\"content\":\"w%03d \"}}]}\n\n", i)
	}
	body.WriteString("data: [DONE]\n\n")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(body.String()))
	}))
	defer srv.Close()
	u, f, _ := probe.ResolveURL(srv.URL, "auto")
	r := probe.Stream(context.Background(), probe.Target{URL: u, Format: f}, probe.Options{}, &record.Record{}, nil)
	if r.Status != record.StatusComplete || r.ContentFrames != 500 {
		t.Fatalf("status %s %s, %d content frames, want complete with 500", r.Status, errString(r.Error), r.ContentFrames)
	}
	for i, fr := range r.Frames[:500] {
		if want := fmt.Sprintf("w%03d ", i); fr.Text != want {
			t.Fatalf("frame %d text %q, want %q", i, fr.Text, want)
		}
	}
}

func TestRedactURL(t *testing.T) {
	got := probe.RedactURL("https://user:pw@host/v1?key=sk-123&api_key=x&model=m")
	want := "https://host/v1?key=REDACTED&api_key=REDACTED&model=m"
	if got != want {
		t.Errorf("RedactURL = %q, want %q", got, want)
	}
}

// A server that compresses anyway: the record says so, and content is
// still decoded (its timing is the compressor's, which is why it is noted).
func TestStreamRecordsCompression(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Accept-Encoding") != "identity" {
			t.Errorf("Accept-Encoding %q, want identity", r.Header.Get("Accept-Encoding"))
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		gz := gzip.NewWriter(w)
		gz.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n"))
		gz.Close()
	}))
	defer srv.Close()
	u, f, _ := probe.ResolveURL(srv.URL, "auto")
	r := probe.Stream(context.Background(), probe.Target{URL: u, Format: f}, probe.Options{}, &record.Record{}, nil)
	if r.ContentEncoding != "gzip" || r.ContentFrames != 1 || r.Status != record.StatusComplete {
		t.Errorf("encoding %q content frames %d status %s", r.ContentEncoding, r.ContentFrames, r.Status)
	}
}

// Observers may keep the frames they are shown (probe.Event): each read's
// frames and the record's frames so far must read the same after the
// stream, even when the record is used again for a second stream.
func TestStreamObserverMayKeepFrames(t *testing.T) {
	inBubble(t, testStreamObserverMayKeepFrames)
}

func testStreamObserverMayKeepFrames(t *testing.T, srv *memnet.Server) {
	u, f, _ := probe.ResolveURL(srv.URL, "auto")
	type kept struct{ shared, copied []record.Frame }
	var views []kept
	observe := func(e probe.Event) {
		if e.Type != probe.EventFrames {
			return
		}
		sofar := e.Record.Frames[:len(e.Record.Frames):len(e.Record.Frames)]
		views = append(views,
			kept{e.Frames, append([]record.Frame(nil), e.Frames...)},
			kept{sofar, append([]record.Frame(nil), sofar...)})
	}
	rec := &record.Record{}
	tgt := probe.Target{URL: u, Format: f, Request: adapters.Request{Model: "steady"}}
	o := probe.Options{Dial: srv.Dial}
	probe.Stream(context.Background(), tgt, o, rec, observe)
	first := len(views)
	probe.Stream(context.Background(), tgt, o, rec, observe)
	// On the bubble's clock every flush of the schedule is a read of its own.
	if first < 4 || len(views)-first != first {
		t.Fatalf("%d then %d frame events, want the same number twice", first, len(views)-first)
	}
	for i, v := range views {
		if len(v.shared) != len(v.copied) {
			t.Fatalf("event %d: %d frames kept, %d seen", i, len(v.shared), len(v.copied))
		}
		for j := range v.shared {
			a, b := v.shared[j], v.copied[j]
			if a.TMS != b.TMS || a.Read != b.Read || a.Kind != b.Kind || a.Text != b.Text || a.Bytes != b.Bytes {
				t.Fatalf("event %d frame %d changed after the call: %+v, was %+v", i, j, a, b)
			}
		}
	}
}

// A gzip body that goes wrong is the server's fault, said so (class
// decode), not a reset: corrupt halfway, cut short while the connection
// ended cleanly, or no gzip at all behind Content-Encoding: gzip. A
// connection cut inside a gzip body is still a reset.
func TestStreamNamesABrokenGzipBody(t *testing.T) {
	var whole bytes.Buffer
	gz := gzip.NewWriter(&whole)
	gz.Write([]byte(strings.Repeat("data: {\"choices\":[{\"delta\":{\"content\":\"Hi there\"}}]}\n\n", 200) + "data: [DONE]\n\n"))
	gz.Close()
	corrupt := bytes.Clone(whole.Bytes())
	for i := len(corrupt) / 2; i < len(corrupt)/2+16; i++ {
		corrupt[i] ^= 0x55
	}
	for _, c := range []struct {
		name, class, message string
		body                 []byte
		cut                  bool // the connection is cut after body
	}{
		{"corrupt halfway", record.ErrDecode, "the gzip-compressed body does not decode: flate: corrupt input", corrupt, false},
		{"cut short, clean end", record.ErrDecode, "the gzip-compressed body ended inside its compressed stream (cut short)", whole.Bytes()[:whole.Len()/2], false},
		{"not gzip", record.ErrDecode, "the gzip-compressed body does not decode: gzip: invalid header", []byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n"), false},
		{"connection cut", record.ErrReset, "connection closed in the middle of the body", whole.Bytes()[:whole.Len()/2], true},
	} {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Content-Encoding", "gzip")
			if !c.cut {
				w.Write(c.body)
				return
			}
			conn, buf, _ := w.(http.Hijacker).Hijack()
			fmt.Fprintf(buf, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Encoding: gzip\r\nContent-Length: %d\r\n\r\n", len(c.body)+100)
			buf.Write(c.body)
			buf.Flush()
			conn.Close()
		}))
		u, f, _ := probe.ResolveURL(srv.URL, "auto")
		r := probe.Stream(context.Background(), probe.Target{URL: u, Format: f}, probe.Options{}, &record.Record{}, nil)
		srv.Close()
		if r.Error == nil || r.Error.Class != c.class || !strings.HasPrefix(r.Error.Message, c.message) || r.Status != record.StatusFailed {
			t.Errorf("%s: status %s, error %+v; want failed, class %s, a message beginning %q", c.name, r.Status, r.Error, c.class, c.message)
		}
	}
}

// An event that is not JSON fails the stream with class decode, naming it,
// though [DONE] came after; its frame is kept with its text, bytes and time.
func TestStreamFailsDecodeOnAnEventThatIsNotJSON(t *testing.T) {
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: {\"choices\":[{\"delta\":\n\ndata: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte(body))
	}))
	defer srv.Close()
	u, f, _ := probe.ResolveURL(srv.URL, "auto")
	r := probe.Stream(context.Background(), probe.Target{URL: u, Format: f}, probe.Options{}, &record.Record{}, nil)
	want := `undecodable event: event 2 is not JSON: {"choices":[{"delta":`
	if r.Status != record.StatusFailed || r.Complete || r.Error == nil || r.Error.Class != record.ErrDecode || r.Error.Message != want {
		t.Fatalf("status %s, complete %v, error %+v; want failed with class decode, %q", r.Status, r.Complete, r.Error, want)
	}
	if len(r.Frames) != 3 {
		t.Fatalf("%d frames, want 3", len(r.Frames))
	}
	bad := r.Frames[1]
	if bad.Kind != record.KindMeta || bad.Text != `{"choices":[{"delta":` || bad.Bytes != len(`data: {"choices":[{"delta":`)+2 || bad.TMS < r.Frames[0].TMS || bad.TMS > r.Frames[2].TMS {
		t.Errorf("the undecodable frame is %+v; want meta with its text and bytes, at its read's time", bad)
	}
}
