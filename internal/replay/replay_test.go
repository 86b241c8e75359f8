package replay_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// secret is in every credential header and query key the clients send; no
// record may contain it.
const secret = "sk-SECRET-0123456789"

// endpoint is a client's URL for a format on base (the fixture server or
// drip record in front of it) and the scenario.
func endpoint(base, format, scenario string) string {
	f := adapters.Lookup(format)
	if f.Path == "" {
		return base + "/generic/stream?format=" + format
	}
	p := strings.ReplaceAll(f.Path, "{model}", url.PathEscape(scenario))
	return base + p
}

// recordEveryFormat streams scenario in every format through drip record
// in front of the fixture server, with credentials in every header a
// client might use, and returns the records as they were written and read
// back from JSON Lines. It runs on an in-memory network, so call it in a
// synctest bubble, where every wait is the scenario's exactly.
func recordEveryFormat(t *testing.T, scenario string) (recs []*record.Record, upstream *memnet.Server) {
	t.Helper()
	up := memnet.NewServer(fixtures.NewServer())
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	w := record.NewWriter(&buf)
	p := relay.New(context.Background(), relay.Options{Upstream: u, Client: up.Client()}, func(r *record.Record) error {
		mu.Lock()
		defer mu.Unlock()
		if err := w.Write(r); err != nil {
			t.Error(err)
		}
		return nil
	})
	proxy := memnet.NewServer(p)
	t.Cleanup(proxy.Close)
	var wg sync.WaitGroup
	for _, format := range adapters.Names() {
		wg.Go(func() {
			raw := endpoint(proxy.URL, format, scenario)
			if strings.Contains(raw, "?") {
				raw += "&key=" + secret
			} else {
				raw += "?key=" + secret
			}
			h := http.Header{}
			for _, k := range []string{"Authorization", "X-Api-Key", "X-Goog-Api-Key", "Api-Key", "Cookie", "X-Amz-Security-Token", "X-Portkey-Api-Key"} {
				h.Set(k, secret)
			}
			f := adapters.Lookup(format)
			tgt := probe.Target{URL: raw, Format: f, Header: h, Request: adapters.Request{Model: scenario, Prompt: "hi"}}
			rec := probe.Stream(context.Background(), tgt, probe.Options{Dial: proxy.Dial}, &record.Record{}, nil)
			if rec.Status != record.StatusComplete {
				t.Errorf("%s: the client through drip record got %s (%+v)", format, rec.Status, rec.Error)
			}
		})
	}
	wg.Wait()
	p.Wait()
	if bytes.Contains(buf.Bytes(), []byte("SECRET")) {
		i := bytes.Index(buf.Bytes(), []byte("SECRET"))
		t.Fatalf("a credential reached the recording: …%s…", buf.Bytes()[max(i-200, 0):i+20])
	}
	recs, skipped, err := record.ReadAll(&buf, stats.Rederive)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("reading the recording back: %v %v", err, skipped)
	}
	return recs, up
}

// TestRecordReplayGateEveryFormat is the loop end to end in every format,
// Bedrock's binary event stream included: record through the proxy, replay
// against the fixture server, compare with the recording as baseline and
// gate, absolute and relative.
func TestRecordReplayGateEveryFormat(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testRecordReplayGateEveryFormat)
}

func testRecordReplayGateEveryFormat(t *testing.T) {
	recs, upstream := recordEveryFormat(t, "steady")
	if len(recs) != len(adapters.Names()) {
		t.Fatalf("%d records for %d formats", len(recs), len(adapters.Names()))
	}
	formats := map[string]bool{}
	for _, r := range recs {
		formats[r.Format] = true
		if r.Status != record.StatusComplete || r.Exchange == nil || !r.Exchange.Streamed {
			t.Errorf("recorded %s: status %s, exchange %+v", r.Format, r.Status, r.Exchange)
			continue
		}
		if want := fixtures.Lookup("steady").OutputTokens(); r.OutputTokens != want && r.Format != "raw" {
			t.Errorf("recorded %s: %d tokens, want %d", r.Format, r.OutputTokens, want)
		}
		for _, h := range []string{"authorization", "x-api-key", "x-goog-api-key", "api-key", "cookie", "x-amz-security-token", "x-portkey-api-key", "query key"} {
			if !strings.Contains(strings.Join(r.Exchange.Removed, ","), h) {
				t.Errorf("recorded %s: removed %v lacks %s", r.Format, r.Exchange.Removed, h)
			}
		}
	}
	for _, f := range adapters.Names() {
		if !formats[f] {
			t.Errorf("no record detected as %s (got %v)", f, formats)
		}
	}

	streams := replay.Streams(recs)
	var replayed []*record.Record
	o := replay.Options{Against: upstream.URL, Concurrency: len(streams), Probe: probe.Options{Dial: upstream.Dial}}
	replay.Run(context.Background(), streams, o, func(r *record.Record) {
		replayed = append(replayed, r)
	})
	gates := parseGates(t, "failed > 0", "ttft.p95 > +1000%", "completed < -1%", "llm.requests != 0")
	c, err := compare.New([]compare.Input{{Label: "recorded", Records: streams}, {Label: "replayed", Records: replayed}}, compare.Options{Gates: gates})
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range replayed {
		if r.Status != record.StatusComplete {
			t.Errorf("replayed %s: %s (%+v)", r.Format, r.Status, r.Error)
		}
	}
	want := []bool{false, false, false, true} // the last one trips by design: there were requests
	for i, g := range c.Gates {
		if g.Tripped != want[i] {
			t.Errorf("gate %s: tripped %v, want %v (%s)", g.Expr, g.Tripped, want[i], g.Message)
		}
	}
}

// TestReplayGateCatchesAFailingServer replays a recording against a server
// that fails every request: the absolute and the relative gate trip.
func TestReplayGateCatchesAFailingServer(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testReplayGateCatchesAFailingServer)
}

func testReplayGateCatchesAFailingServer(t *testing.T) {
	recs, _ := recordEveryFormat(t, "steady")
	broken := memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Error(w, `{"error":{"message":"overloaded"}}`, http.StatusServiceUnavailable)
	}))
	t.Cleanup(broken.Close)
	streams := replay.Streams(recs)
	var replayed []*record.Record
	o := replay.Options{Against: broken.URL, Concurrency: 4, Probe: probe.Options{Dial: broken.Dial}}
	replay.Run(context.Background(), streams, o, func(r *record.Record) {
		replayed = append(replayed, r)
	})
	c, err := compare.New([]compare.Input{{Label: "recorded", Records: streams}, {Label: "replayed", Records: replayed}},
		compare.Options{Gates: parseGates(t, "failed > 0", "completed < -50%")})
	if err != nil {
		t.Fatal(err)
	}
	for _, g := range c.Gates {
		if !g.Tripped {
			t.Errorf("gate %s passed against a failing server: %s", g.Expr, g.Message)
		}
	}
}

func parseGates(t *testing.T, exprs ...string) []stats.Gate {
	t.Helper()
	var gs []stats.Gate
	for _, e := range exprs {
		g, err := stats.ParseGate(e)
		if err != nil {
			t.Fatal(err)
		}
		gs = append(gs, g)
	}
	return gs
}

// TestReplaySendsTheRecordedMethodPathAndQuery records a GET and a PUT
// stream (not only POST) through drip record and replays them, PUT
// allowed: the server under test gets each request's method, path, query
// and body as recorded.
func TestReplaySendsTheRecordedMethodPathAndQuery(t *testing.T) {
	t.Parallel()
	const events = "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"
	var (
		mu  sync.Mutex
		got []string
	)
	stream := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, r.Method+" "+r.URL.RequestURI()+" "+string(body))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, events)
	})
	up := httptest.NewServer(stream)
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	var recs []*record.Record
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error { recs = append(recs, r); return nil })
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)
	sent := []string{"GET /v1/events?after=3&stream=1 ", `PUT /v1/chat/completions?api-version=2 {"stream":true}`}
	for _, s := range sent {
		method, rest, _ := strings.Cut(s, " ")
		uri, body, _ := strings.Cut(rest, " ")
		req, _ := http.NewRequest(method, proxy.URL+uri, strings.NewReader(body))
		req.Header.Set("Accept", "text/event-stream")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	p.Wait()
	streams := replay.Streams(recs, "PUT")
	if len(streams) != 2 {
		t.Fatalf("%d replayable streams recorded, want 2: %+v", len(streams), recs)
	}
	mu.Lock()
	got = nil // what the upstream saw while recording
	mu.Unlock()
	replay.Run(context.Background(), streams, replay.Options{Against: up.URL}, func(*record.Record) {})
	// The handler's writes reach this goroutine through a socket, which
	// the race detector does not see, so the lock orders them.
	mu.Lock()
	defer mu.Unlock()
	slices.Sort(got)
	slices.Sort(sent)
	if !slices.Equal(got, sent) {
		t.Errorf("the server under test got\n%q\nwant the recorded\n%q", got, sent)
	}
}

// TestReplayCountsStallsByTheRecordingsThreshold records two sessions, at
// 500 ms and 300 ms stall thresholds (drip record --stall), into one
// recording and replays it: each stream counts stalls at its own
// session's threshold, so the comparison finds no stall threshold between
// them (it counted at the default 250 ms, "workload differs", then every
// stream at the first one's).
func TestReplayCountsStallsByTheRecordingsThreshold(t *testing.T) {
	t.Parallel()
	synctest.Test(t, testReplayCountsStallsByTheRecordingsThreshold)
}

func testReplayCountsStallsByTheRecordingsThreshold(t *testing.T) {
	up := memnet.NewServer(fixtures.NewServer())
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	var (
		mu   sync.Mutex
		recs []*record.Record
	)
	recordAt := func(stallMS float64, prompt string) {
		p := relay.New(context.Background(), relay.Options{Upstream: u, Client: up.Client(), StallMS: stallMS}, func(r *record.Record) error {
			mu.Lock()
			defer mu.Unlock()
			recs = append(recs, r)
			return nil
		})
		proxy := memnet.NewServer(p)
		defer proxy.Close()
		tgt := probe.Target{URL: endpoint(proxy.URL, "openai-chat", "steady"), Format: adapters.Lookup("openai-chat"), Request: adapters.Request{Model: "steady", Prompt: prompt}}
		probe.Stream(context.Background(), tgt, probe.Options{Dial: proxy.Dial}, &record.Record{}, nil)
		p.Wait()
	}
	recordAt(500, "hi")
	recordAt(300, "hello")
	streams := replay.Streams(recs)
	want := map[string]float64{} // prompt id: the stall threshold it was recorded at
	for _, s := range streams {
		want[s.PromptID] = s.StallMS
	}
	if len(streams) != 2 || len(want) != 2 || !slices.Contains(stallThresholds(streams), 300) || !slices.Contains(stallThresholds(streams), 500) {
		t.Fatalf("recorded %d streams at %v ms, want 2 of 2 prompts at 500 and 300 ms", len(streams), stallThresholds(streams))
	}
	var replayed []*record.Record
	replay.Run(context.Background(), streams, replay.Options{Against: up.URL, Probe: probe.Options{Dial: up.Dial}}, func(r *record.Record) { replayed = append(replayed, r) })
	if len(replayed) != 2 || replayed[0].StallMS != want[replayed[0].PromptID] || replayed[1].StallMS != want[replayed[1].PromptID] {
		t.Fatalf("replayed %d streams at %v ms, want each at its recording's (prompt id to ms: %v)", len(replayed), stallThresholds(replayed), want)
	}
	c, err := compare.New([]compare.Input{{Label: "recorded", Records: streams}, {Label: "replayed", Records: replayed}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range c.Workload {
		if d.Setting == "stall threshold" {
			t.Errorf("the replay's stall threshold differs from the recording's: %v", d.Values)
		}
	}
}

func stallThresholds(recs []*record.Record) []float64 {
	var ms []float64
	for _, r := range recs {
		ms = append(ms, r.StallMS)
	}
	return ms
}

// A recording is a file anyone can hand over: its streams sent with a
// method other than POST or GET (a crafted DELETE of a file, a PUT of an
// admin key) are left out unless allowed, and NotReplayed says which and
// how to send them; "" is probe's POST.
func TestReplayLeavesOutMethodsNotAllowed(t *testing.T) {
	t.Parallel()
	var recs []*record.Record
	for i, m := range []string{"POST", "", "GET", "DELETE", "PUT", "delete", "PATCH"} {
		x := &record.Exchange{Method: m, Path: "/v1/files/f-1", Streamed: true}
		recs = append(recs, &record.Record{Seq: i, RunOffsetMS: float64(i), Exchange: x})
	}
	methods := func(rs []*record.Record) (out []string) {
		for _, r := range rs {
			out = append(out, r.Exchange.Method)
		}
		return out
	}
	if got := methods(replay.Streams(recs)); !slices.Equal(got, []string{"POST", "", "GET"}) {
		t.Errorf("replayed %q, want POST, \"\" and GET", got)
	}
	if got := methods(replay.Streams(recs, "DELETE")); !slices.Equal(got, []string{"POST", "", "GET", "DELETE", "delete"}) {
		t.Errorf("with DELETE allowed, replayed %q", got)
	}
	want := "2 streams sent with DELETE (only POST and GET are replayed: --allow-method DELETE sends them), " +
		"1 stream sent with PATCH (only POST and GET are replayed: --allow-method PATCH sends it), " +
		"1 stream sent with PUT (only POST and GET are replayed: --allow-method PUT sends it)"
	if got := replay.NotReplayed(recs); got != want {
		t.Errorf("NotReplayed:\n%s\nwant\n%s", got, want)
	}
	if got := replay.NotReplayed(recs, "DELETE", "PATCH", "PUT"); got != "" {
		t.Errorf("NotReplayed with every method allowed: %q", got)
	}
}
