package sweep

import (
	"context"
	"regexp"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// sweepOn runs levels against a fixture server with slots, each level
// runs streams of scenario after one warmup stream, and returns the
// result and every record. Call it inside a synctest bubble: the server
// is on an in-memory network, so every wait of the scenarios and the queue
// passes on the bubble's clock and each time is the schedule's exactly,
// however loaded the machine.
func sweepOn(t *testing.T, slots int, scenario, kind string, levels []float64, runs int, stop ...string) (Result, []*record.Record) {
	t.Helper()
	srv := memnet.NewServer(fixtures.NewSlots(fixtures.NewServer(), slots))
	defer srv.Close()
	p := Plan{Kind: kind, Levels: levels, Base: probe.Plan{
		Target: probe.Target{URL: srv.URL + "/v1/chat/completions", Format: adapters.Lookup("openai-chat"),
			Request: adapters.Request{Model: scenario, Prompt: "hi"}},
		Options:  probe.Options{StallMS: stats.DefaultStall, Dial: srv.Dial},
		PromptID: "default", Runs: runs, Warmup: 1,
		Workload: &record.RecordWorkload{},
	}}
	for _, e := range stop {
		g, err := stats.ParseGate(e)
		if err != nil {
			t.Fatal(err)
		}
		p.StopWhen = append(p.StopWhen, g)
	}
	var (
		mu   sync.Mutex
		recs []*record.Record
	)
	res, _ := Run(context.Background(), p, func(r *record.Record) {
		mu.Lock()
		recs = append(recs, r)
		mu.Unlock()
	}, nil, nil)
	return res, recs
}

// TestSweepFindsTheKneePastTheSlots is the acceptance: against 4 slots,
// concurrency 1,2,4,8,16 finds the knee at 8, the first level past the
// slots, because TTFT rose while throughput did not. It holds on a loaded
// machine twice over: it runs on synctest's clock (every time is the
// scenario's exactly), and by construction: up to 4 the server is idle and
// throughput doubles with each level (far above the 10% that would make a
// knee); at 8 half the streams wait a whole stream (~1.1 s) for a slot,
// several times the 180 ms TTFT, while the server still serves 4 at once.
func TestSweepFindsTheKneePastTheSlots(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, recs := sweepOn(t, 4, "multi-token", KindConcurrency, []float64{1, 2, 4, 8, 16}, 16)
		if len(res.Levels) != 5 || res.Stopped != nil {
			t.Fatalf("%d levels, stopped %v; want 5 and none", len(res.Levels), res.Stopped)
		}
		if res.Knee == nil {
			t.Fatalf("no knee; levels: %s", describe(res.Levels))
		}
		if res.Knee.Level != 8 || !strings.Contains(res.Knee.Reason, "ttft p95 rose") || !strings.Contains(res.Knee.Reason, "throughput did not follow") {
			t.Errorf("knee at %v: %q; want 8, ttft p95 rose, throughput did not follow (levels: %s)", res.Knee.Level, res.Knee.Reason, describe(res.Levels))
		}
		checkRecords(t, res, recs)
	})
}

// checkRecords checks every record carries its level, one run id and a
// sequence without repeats, and that each level's figures are those
// recomputed from its records.
func checkRecords(t *testing.T, res Result, recs []*record.Record) {
	t.Helper()
	seqs := map[int]bool{}
	for _, r := range recs {
		if r.Level == nil || r.RunID != recs[0].RunID || seqs[r.Seq] {
			t.Fatalf("record %d: level %v, run %s (first %s), seq seen before %v", r.Seq, r.Level, r.RunID, recs[0].RunID, seqs[r.Seq])
		}
		seqs[r.Seq] = true
	}
	for _, l := range res.Levels {
		var ttft, gaps []float64
		measured, warmup, stalls, failed := 0, 0, 0, 0
		for _, r := range recs {
			switch {
			case *r.Level != l.Level:
			case r.Phase == record.PhaseWarmup:
				warmup++
			default:
				measured++
				stalls += len(r.Stalls)
				if r.Status == record.StatusFailed {
					failed++
				}
				if r.TTFTMS != nil {
					ttft = append(ttft, *r.TTFTMS)
				}
				gaps = append(gaps, r.Gaps()...)
			}
		}
		tt, gp := stats.NewDist(ttft), stats.NewDist(gaps)
		if l.Streams != measured || l.Warmup != warmup || l.Failed != failed ||
			!same(l.Metrics["ttft_ms"].P95, tt.P95) || !same(l.Metrics["ttft_ms"].P50, tt.P50) || !same(l.Metrics["gap_ms"].P99, gp.P99) ||
			!same(l.StallsPerStream, new(float64(stalls)/float64(measured))) {
			t.Errorf("level %v: streams %d warmup %d failed %d ttft p50 %s p95 %s gap p99 %s stalls/stream %s; from the records %d %d %d %s %s %s %d/%d",
				l.Level, l.Streams, l.Warmup, l.Failed, num(l.Metrics["ttft_ms"].P50), num(l.Metrics["ttft_ms"].P95), num(l.Metrics["gap_ms"].P99), num(l.StallsPerStream),
				measured, warmup, failed, num(tt.P50), num(tt.P95), num(gp.P99), stalls, measured)
		}
	}
	back := FromRecords(KindOf(recs), recs)
	for i := range back {
		if i >= len(res.Levels) || back[i].Level != res.Levels[i].Level || !same(back[i].Throughput.TokensPerS, res.Levels[i].Throughput.TokensPerS) {
			t.Errorf("level %d read back from the records differs: %v / %s tok/s", i, back[i].Level, num(back[i].Throughput.TokensPerS))
		}
	}
}

func same(a, b *float64) bool { return a == nil && b == nil || a != nil && b != nil && *a == *b }

// TestSweepStopWhen: the sweep ends after the first level where the
// condition holds and says so; the levels after it never run. With 2
// slots, concurrency 4 queues half its streams a whole stream (~1.1 s),
// so its TTFT p50 is far above 300 ms, while at 1 and 2 no stream waits.
func TestSweepStopWhen(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, recs := sweepOn(t, 2, "multi-token", KindConcurrency, []float64{1, 2, 4, 8}, 4, "failed_pct > 5", "ttft.p50 > 300ms")
		if len(res.Levels) != 3 || res.Stopped == nil || !strings.Contains(*res.Stopped, "ttft.p50 > 300ms") || !strings.Contains(*res.Stopped, "concurrency 4") {
			t.Fatalf("%d levels (%s), stopped %v; want 3, stopped at concurrency 4 by ttft.p50 > 300ms", len(res.Levels), describe(res.Levels), res.Stopped)
		}
		for _, r := range recs {
			if *r.Level == 8 {
				t.Fatalf("record %d ran at concurrency 8, after the sweep stopped", r.Seq)
			}
		}
	})
}

// TestRateSweepReportsScheduleLag: every open-loop level has its own
// schedule lag, one sample per arrival.
func TestRateSweepReportsScheduleLag(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		res, recs := sweepOn(t, 8, "multi-token", KindRate, []float64{5, 10}, 4)
		if len(res.Levels) != 2 {
			t.Fatalf("%d levels; want 2", len(res.Levels))
		}
		for _, l := range res.Levels {
			if l.OpenLoop == nil || l.OpenLoop.ScheduleLag.N != 4 || l.OpenLoop.ScheduleLag.P99 == nil || l.Rate != l.Level {
				t.Errorf("rate %v: open loop %+v; want the schedule lag of its 4 arrivals", l.Level, l.OpenLoop)
			}
		}
		for _, r := range recs {
			if r.Phase == record.PhaseMeasure && (r.IntendedStartMS == nil || r.Workload == nil || r.Workload.Rate != *r.Level) {
				t.Errorf("record %d at rate %v: intended start %v, workload %+v", r.Seq, *r.Level, r.IntendedStartMS, r.Workload)
			}
		}
		var b strings.Builder
		Text(&b, &res)
		if !regexp.MustCompile(`lag\n.* p99\n`).MatchString(b.String()) { // the title on two rows
			t.Errorf("the rate sweep's table has no schedule lag column:\n%s", b.String())
		}
	})
}

// TestSweepInterrupted: a sweep canceled mid-level stops there, says so,
// and marks the level partial, which the knee never judges.
func TestSweepInterrupted(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.NewServer(fixtures.NewSlots(fixtures.NewServer(), 4))
		defer srv.Close()
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		// Level 1 runs 4 streams of ~1.1 s; cancel inside level 2.
		time.AfterFunc(6*time.Second, cancel)
		p := Plan{Kind: KindConcurrency, Levels: []float64{1, 2, 4}, Base: probe.Plan{
			Target: probe.Target{URL: srv.URL + "/v1/chat/completions", Format: adapters.Lookup("openai-chat"),
				Request: adapters.Request{Model: "steady", Prompt: "hi"}},
			Options: probe.Options{StallMS: stats.DefaultStall, Dial: srv.Dial}, PromptID: "default", Runs: 4,
		}}
		res, _ := Run(ctx, p, func(*record.Record) {}, nil, nil)
		if len(res.Levels) != 2 || !res.Levels[1].Partial || res.Levels[0].Partial || res.Stopped == nil ||
			!strings.Contains(*res.Stopped, "interrupted during concurrency 2") || res.Levels[1].Canceled == 0 {
			t.Fatalf("levels %s, stopped %v, level 2 partial %v canceled %d; want 2 levels, the second partial with canceled streams, interrupted during concurrency 2",
				describe(res.Levels), res.Stopped, len(res.Levels) > 1 && res.Levels[1].Partial, res.Levels[len(res.Levels)-1].Canceled)
		}
	})
}
