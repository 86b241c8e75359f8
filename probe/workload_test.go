package probe_test

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// inFlight counts the requests a handler is serving, as the server sees them.
type inFlight struct {
	h                   http.Handler
	mu                  sync.Mutex
	now, peak, requests int
	overAt              []int // in flight just after each arrival
}

func (c *inFlight) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	c.mu.Lock()
	c.now++
	c.requests++
	c.peak = max(c.peak, c.now)
	c.overAt = append(c.overAt, c.now)
	c.mu.Unlock()
	defer func() { c.mu.Lock(); c.now--; c.mu.Unlock() }()
	c.h.ServeHTTP(w, r)
}

func fixturePlan(t *testing.T, srv *memnet.Server, scenario string) probe.Plan {
	t.Helper()
	u, f, err := probe.ResolveURL(srv.URL, "auto")
	if err != nil {
		t.Fatal(err)
	}
	return probe.Plan{
		Target:  probe.Target{URL: u, Format: f, Request: adapters.Request{Model: scenario}},
		Options: probe.Options{StallMS: stats.DefaultStall, Dial: srv.Dial},
		Prompts: []probe.Prompt{{ID: "a", Text: "A?"}, {ID: "b", Text: "B?"}, {ID: "c", Text: "C?"}},
		Seed:    7,
	}
}

// collect runs a plan and returns its records in the order they ended.
func collect(ctx context.Context, p probe.Plan) ([]*record.Record, stats.RunStats) {
	var recs []*record.Record
	st := probe.Run(ctx, p, func(r *record.Record) { recs = append(recs, r) }, nil)
	return recs, st
}

// --concurrency 6 holds exactly 6 streams in flight at the server, refilling
// each slot as a stream ends; every record names its prompt, and each
// round sends every prompt once.
func TestClosedLoopHoldsConcurrency(t *testing.T) {
	c := &inFlight{h: fixtures.NewServer()}
	serveInBubble(t, c, func(t *testing.T, srv *memnet.Server) { testClosedLoopHoldsConcurrency(t, srv, c) })
}

func testClosedLoopHoldsConcurrency(t *testing.T, srv *memnet.Server, c *inFlight) {
	p := fixturePlan(t, srv, "in-stream-error")
	p.Concurrency, p.Runs = 6, 24
	recs, _ := collect(context.Background(), p)
	if c.peak != 6 || c.requests != 24 || len(recs) != 24 {
		t.Fatalf("peak %d in flight, %d requests, %d records; want 6, 24, 24", c.peak, c.requests, len(recs))
	}
	perPrompt := map[string]int{}
	seqs := map[int]bool{}
	for _, r := range recs {
		perPrompt[r.PromptID]++
		seqs[r.Seq] = true
		if r.Phase != record.PhaseMeasure || r.RunID == "" {
			t.Errorf("record %d: phase %q run %q", r.Seq, r.Phase, r.RunID)
		}
	}
	if perPrompt["a"] != 8 || perPrompt["b"] != 8 || perPrompt["c"] != 8 || len(seqs) != 24 {
		t.Errorf("per prompt %v, %d distinct seqs", perPrompt, len(seqs))
	}
	t.Logf("in flight at each arrival: %v", c.overAt)
}

// Each round of the prompt order holds every prompt once; the same seed
// gives the same order.
func TestPromptOrderPerRound(t *testing.T) { inBubble(t, testPromptOrderPerRound) }

func testPromptOrderPerRound(t *testing.T, srv *memnet.Server) {
	order := func(seed int64) []string {
		p := fixturePlan(t, srv, "rate-limited")
		p.Runs, p.Seed = 30, seed
		recs, _ := collect(context.Background(), p)
		ids := make([]string, len(recs))
		for _, r := range recs {
			ids[r.Seq] = r.PromptID
		}
		return ids
	}
	a, b := order(1), order(1)
	for r := 0; r < 30; r += 3 {
		seen := map[string]bool{a[r]: true, a[r+1]: true, a[r+2]: true}
		if len(seen) != 3 {
			t.Errorf("round %d is %v", r/3, a[r:r+3])
		}
	}
	if !equal(a, b) {
		t.Errorf("seed 1 gave %v then %v", a, b)
	}
	if equal(a, order(2)) {
		t.Error("seeds 1 and 2 gave the same order of 10 rounds")
	}
}

func equal(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for k := range a {
		if a[k] != b[k] {
			return false
		}
	}
	return true
}

// Warmup sends N streams per prompt first, recorded with phase "warmup" and
// left out of the aggregate.
func TestWarmupPerPrompt(t *testing.T) { inBubble(t, testWarmupPerPrompt) }

func testWarmupPerPrompt(t *testing.T, srv *memnet.Server) {
	p := fixturePlan(t, srv, "rate-limited")
	p.Warmup, p.Runs = 2, 3
	recs, _ := collect(context.Background(), p)
	agg := stats.NewAggregate(stats.DefaultStall)
	warm := map[string]int{}
	for k, r := range recs {
		agg.Add(r)
		if r.Phase == record.PhaseWarmup {
			warm[r.PromptID]++
			if k >= 6 {
				t.Errorf("warmup record %d came after a measured one", k)
			}
		}
	}
	s := agg.Summary(stats.Workload{})
	if len(recs) != 9 || warm["a"] != 2 || warm["b"] != 2 || warm["c"] != 2 {
		t.Errorf("%d records, warmup per prompt %v", len(recs), warm)
	}
	if s.Streams.Warmup != 6 || s.Streams.Attempted != 3 || s.Streams.Failed != 3 || len(s.PerPrompt) != 3 {
		t.Errorf("streams %+v, %d prompts", s.Streams, len(s.PerPrompt))
	}
}

// An open loop admits an arrival only while fewer than MaxInflight streams
// are in flight; the rest are counted, never queued. The server holds every
// stream open until the run is canceled, after the last arrival.
func TestOpenLoopMaxInflight(t *testing.T) {
	held := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusOK)
		http.NewResponseController(w).Flush()
		<-r.Context().Done()
	})
	serveInBubble(t, held, testOpenLoopMaxInflight)
}

func testOpenLoopMaxInflight(t *testing.T, srv *memnet.Server) {
	p := fixturePlan(t, srv, "held")
	p.Rate, p.Arrival, p.Runs, p.MaxInflight = 200, probe.ArrivalConstant, 30, 3
	pg := &probe.Progress{}
	p.Progress = pg
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go func() {
		for pg.Attempted.Load() < 30 {
			time.Sleep(time.Millisecond) // polling for the last arrival, not timing
		}
		cancel()
	}()
	recs, st := collect(ctx, p)
	if len(recs) != 3 || st.NotAdmitted != 27 || pg.Attempted.Load() != 30 || pg.Admitted.Load() != 3 {
		t.Fatalf("%d records, %d not admitted, progress %d/%d", len(recs), st.NotAdmitted, pg.Attempted.Load(), pg.Admitted.Load())
	}
	agg := stats.NewAggregate(stats.DefaultStall)
	for _, r := range recs {
		agg.Add(r)
		if r.IntendedStartMS == nil || r.Status != record.StatusCanceled {
			t.Errorf("record %d: intended %s status %s", r.Seq, num(r.IntendedStartMS), r.Status)
		}
	}
	agg.SetRun(st)
	s := agg.Summary(stats.Workload{})
	if s.Streams.Attempted != 30 || s.Streams.Admitted != 3 || s.Streams.Canceled != 3 || s.OpenLoop == nil || s.OpenLoop.NotAdmitted != 27 || s.OpenLoop.ScheduleLag.N != 30 {
		t.Errorf("streams %+v open loop %+v", s.Streams, s.OpenLoop)
	}
}

// Coordinated omission: the server freezes every response for 400 ms while
// an open loop keeps sending. Every request scheduled during the freeze is
// charged for it from its intended start — not only those that were in
// flight when it began.
func TestOpenLoopChargesTheFreeze(t *testing.T) {
	fz := fixtures.NewFreezer(fixtures.NewServer())
	serveInBubble(t, fz, func(t *testing.T, srv *memnet.Server) { testOpenLoopChargesTheFreeze(t, srv, fz) })
}

func testOpenLoopChargesTheFreeze(t *testing.T, srv *memnet.Server, fz *fixtures.Freezer) {
	p := fixturePlan(t, srv, "in-stream-error") // first content at 180 ms
	p.Rate, p.Arrival, p.Runs = 40, probe.ArrivalConstant, 40
	const freezeFor = 400 * time.Millisecond
	from := time.Now().Add(300 * time.Millisecond)
	until := from.Add(freezeFor)
	fz.Freeze(from, freezeFor)
	recs, st := collect(context.Background(), p)
	agg := stats.NewAggregate(stats.DefaultStall)
	during := 0
	for _, r := range recs {
		agg.Add(r)
		runStart := r.Start.Add(-time.Duration(r.RunOffsetMS * float64(time.Millisecond)))
		intended := runStart.Add(time.Duration(*r.IntendedStartMS * float64(time.Millisecond)))
		if r.TTFTMS == nil {
			t.Fatalf("record %d has no TTFT", r.Seq)
		}
		userTTFT := r.RunOffsetMS - *r.IntendedStartMS + *r.TTFTMS
		if !intended.Before(from) && intended.Before(until) {
			during++
			if floor := float64(until.Sub(intended)) / 1e6; userTTFT < floor {
				t.Errorf("record %d scheduled %v into the freeze: user TTFT %.1f ms < %.1f ms left of the freeze", r.Seq, intended.Sub(from), userTTFT, floor)
			}
		}
	}
	if during < 12 {
		t.Fatalf("only %d requests were scheduled during the freeze", during)
	}
	agg.SetRun(st)
	s := agg.Summary(stats.Workload{})
	ol := s.OpenLoop
	if ol == nil || ol.TTFTUser.N != 40 || ol.ClientQueue.N != 40 || ol.ScheduleLag.N != 40 {
		t.Fatalf("open loop summary %+v", ol)
	}
	if *ol.TTFTUser.Max < float64(freezeFor/time.Millisecond) {
		t.Errorf("user TTFT max %.1f ms does not show the %v freeze", *ol.TTFTUser.Max, freezeFor)
	}
	t.Logf("%d scheduled during the freeze; user ttft p50 %.1f max %.1f; service ttft p50 %.1f max %.1f; queue p99 %.2f; lag p99 %.2f",
		during, *ol.TTFTUser.P50, *ol.TTFTUser.Max, *s.Metrics["ttft_ms"].P50, *s.Metrics["ttft_ms"].Max, *ol.ClientQueue.P99, *ol.ScheduleLag.P99)
}

// Canceling the run stops admitting and records the in-flight streams as
// canceled, with their partial timelines.
func TestRunCancelRecordsPartialStreams(t *testing.T) {
	inBubble(t, testRunCancelRecordsPartialStreams)
}

func testRunCancelRecordsPartialStreams(t *testing.T, srv *memnet.Server) {
	p := fixturePlan(t, srv, "long") // 10 s of frames
	p.Concurrency, p.Runs = 4, 100
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var framed sync.Map
	var streams atomic.Int32
	observe := func(e probe.Event) {
		if e.Type == probe.EventFrames {
			if _, loaded := framed.LoadOrStore(e.Seq, true); !loaded && streams.Add(1) == 4 {
				cancel()
			}
		}
	}
	var recs []*record.Record
	probe.Run(ctx, p, func(r *record.Record) { recs = append(recs, r) }, observe)
	if len(recs) != 4 {
		t.Fatalf("%d records after canceling with 4 in flight", len(recs))
	}
	for _, r := range recs {
		if r.Status != record.StatusCanceled || r.Error == nil || r.Error.Class != record.ErrCanceled || len(r.Frames) == 0 {
			t.Errorf("record %d: status %s error %s frames %d", r.Seq, r.Status, errString(r.Error), len(r.Frames))
		}
	}
}

// A generator that falls behind shows it while the run goes on: the clock
// jumps 50 ms ahead a few arrivals in, so the arrivals due before the jump
// ends are sent at once, late. Progress has the largest lag (the one the
// run's distribution ends with) and counts the arrivals over the bound.
func TestOpenLoopLagIsLive(t *testing.T) { inBubble(t, testOpenLoopLagIsLive) }

func testOpenLoopLagIsLive(t *testing.T, srv *memnet.Server) {
	p := fixturePlan(t, srv, "steady")
	p.Rate, p.Arrival, p.Runs = 100, probe.ArrivalConstant, 12
	var calls atomic.Int64
	p.Options.Clock = func() time.Time {
		now := time.Now()
		if calls.Add(1) > 8 { // a few arrivals and streams in
			now = now.Add(50 * time.Millisecond)
		}
		return now
	}
	pg := &probe.Progress{}
	p.Progress = pg
	_, st := collect(context.Background(), p)
	maxMS := float64(pg.LagMax.Load()) / float64(time.Millisecond)
	if st.Lag.Max == nil || *st.Lag.Max != maxMS || maxMS < 40 {
		t.Fatalf("live lag max %.3f ms, the run's %s", maxMS, num(st.Lag.Max))
	}
	if over := pg.LagOver.Load(); over < 1 || over > pg.Attempted.Load() || !st.ClientLimited {
		t.Errorf("%d of %d arrivals over the bound; client-limited %v", over, pg.Attempted.Load(), st.ClientLimited)
	}
}

// The plan's one-line shape counts its runs as words do: "1 run", not "1 runs".
func TestDescribeCountsRuns(t *testing.T) {
	for _, c := range []struct {
		plan probe.Plan
		want string
	}{
		{probe.Plan{Runs: 1}, "1 run"},
		{probe.Plan{Runs: 3}, "3 runs"},
		{probe.Plan{Runs: 1, Duration: 2 * time.Second}, "1 run or 2s, whichever ends first"},
	} {
		if got := c.plan.Describe(); got != c.want {
			t.Errorf("Describe of %+v = %q, want %q", c.plan, got, c.want)
		}
	}
}

// A load fills the plan: DefaultRuns unless runs were given (no limit with
// a duration), a new seed unless one was given, the open loop's fields only
// with a rate; the plan is checked.
func TestLoadApply(t *testing.T) {
	var p probe.Plan
	if err := (probe.Load{Concurrency: 2, Arrival: probe.ArrivalPoisson, MaxInflight: 9}).Apply(&p); err != nil {
		t.Fatal(err)
	}
	if p.Runs != probe.DefaultRuns || p.Concurrency != 2 || p.Rate != 0 || p.Arrival != "" || p.MaxInflight != 0 || p.Seed == 0 {
		t.Errorf("closed loop: got runs %d concurrency %d rate %v arrival %q max-inflight %d seed %d", p.Runs, p.Concurrency, p.Rate, p.Arrival, p.MaxInflight, p.Seed)
	}
	p = probe.Plan{}
	l := probe.Load{Rate: 5, Arrival: probe.ArrivalConstant, MaxInflight: 9, Duration: time.Minute, Seed: 7, SeedGiven: true, Concurrency: 3}
	if err := l.Apply(&p); err != nil {
		t.Fatal(err)
	}
	if p.Runs != 0 || p.Rate != 5 || p.MaxInflight != 9 || p.Concurrency != 0 || p.Seed != 7 {
		t.Errorf("open loop for a minute: got runs %d rate %v max-inflight %d concurrency %d seed %d", p.Runs, p.Rate, p.MaxInflight, p.Concurrency, p.Seed)
	}
	p = probe.Plan{}
	if err := (probe.Load{RunsGiven: true}).Apply(&p); err == nil || err.Error() != "--runs 0 needs a --duration" {
		t.Errorf("--runs 0 alone: got %v", err)
	}
}

// The workload stamped on records: a closed loop has at least one stream
// in flight, an open loop its rate, a slice of a sharded run its label.
func TestPlanStamp(t *testing.T) {
	p := probe.Plan{Target: probe.Target{Request: adapters.Request{MaxTokens: 64}}}
	p.Stamp("v1")
	if w := p.Workload; w.Concurrency != 1 || w.MaxTokens != 64 || w.Version != "v1" || w.Rate != 0 || w.Shard != "" {
		t.Errorf("closed loop: got %+v", *w)
	}
	p = probe.Plan{Rate: 4, Shard: 2, Shards: 3}
	p.Stamp("v1")
	if w := p.Workload; w.Concurrency != 0 || w.Rate != 4 || w.Shard != "2/3" {
		t.Errorf("open loop, shard 2/3: got %+v", *w)
	}
}
