package sweep

import (
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// synthRecord is a complete stream that started at offset (ms on the run's
// axis), with its first word at ttft and one word every gap after it.
func synthRecord(t *testing.T, offset, ttft, gap float64, words int) *record.Record {
	t.Helper()
	r := &record.Record{Phase: record.PhaseMeasure, RunOffsetMS: offset}
	at := ttft
	for i := range words {
		r.Frames = append(r.Frames, record.Frame{TMS: at, Read: i, Kind: adapters.KindContent, Text: " w"})
		at += gap
	}
	r.Frames = append(r.Frames, record.Frame{TMS: at, Read: words, Kind: adapters.KindEnd})
	r.DurationMS = at
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	return r
}

// synthLevel is n streams at level lv, each with its TTFT from ttfts (in
// turn) and 20 words 25 ms apart, started in rounds of per so that the
// level's window (and so its throughput) is rounds × one stream.
func synthLevel(t *testing.T, lv float64, per int, ttfts ...float64) Level {
	t.Helper()
	acc := newLevelAcc(lv, KindConcurrency, stats.DefaultStall)
	for i, ttft := range ttfts {
		offset := float64(i/per) * 1000
		acc.add(synthRecord(t, offset, ttft, 25, 20))
	}
	return acc.level(&stats.RunStats{}, false)
}

func TestFindKnee(t *testing.T) {
	t.Parallel()
	same := []float64{180, 181, 182, 183, 180, 181, 182, 183}
	queued := []float64{180, 181, 182, 183, 700, 701, 702, 703}
	for _, tc := range []struct {
		name   string
		levels []Level
		knee   float64 // 0: none
	}{
		{"throughput follows the load: no knee", []Level{
			synthLevel(t, 1, 1, same...), synthLevel(t, 2, 2, same...), synthLevel(t, 4, 4, same...),
		}, 0},
		{"ttft rises while throughput stays: the knee", []Level{
			synthLevel(t, 2, 2, same...), synthLevel(t, 4, 4, same...), synthLevel(t, 8, 4, queued...), synthLevel(t, 16, 4, queued...),
		}, 8},
		{"ttft rises and throughput follows: no knee", []Level{
			synthLevel(t, 4, 4, same...), synthLevel(t, 8, 8, queued...),
		}, 0},
		// One slow stream of eight moves the p95 by far more than 25%,
		// but resampling streams puts 0 inside the interval.
		{"a rise within noise is not a knee", []Level{
			synthLevel(t, 4, 4, same...), synthLevel(t, 8, 4, 180, 181, 182, 183, 180, 181, 182, 400),
		}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			k := FindKnee(tc.levels)
			switch {
			case tc.knee == 0 && k != nil:
				t.Errorf("knee at %v: %s; want none", k.Level, k.Reason)
			case tc.knee != 0 && k == nil:
				t.Errorf("no knee; want one at %v (levels: %s)", tc.knee, describe(tc.levels))
			case k != nil && (k.Level != tc.knee || !strings.Contains(k.Reason, "ttft p95 rose") || !strings.Contains(k.Reason, "throughput did not follow")):
				t.Errorf("knee at %v: %q; want %v, ttft p95 rose, throughput did not follow", k.Level, k.Reason, tc.knee)
			}
		})
	}
}

func describe(levels []Level) string {
	var parts []string
	for _, l := range levels {
		parts = append(parts, LevelNum(l.Level)+": ttft p95 "+num(l.Metrics["ttft_ms"].P95)+" tok/s "+num(l.Throughput.TokensPerS))
	}
	return strings.Join(parts, "; ")
}

func num(v *float64) string {
	if v == nil {
		return "null"
	}
	return LevelNum(*v)
}

func TestStopReason(t *testing.T) {
	t.Parallel()
	l := synthLevel(t, 8, 4, 180, 181, 182, 183, 700, 701, 702, 703)
	g, err := stats.ParseGate("ttft.p95 > 500ms")
	if err != nil {
		t.Fatal(err)
	}
	pass, _ := stats.ParseGate("failed_pct > 5")
	if why := stopReason([]stats.Gate{pass}, &l); why != "" {
		t.Errorf("failed_pct > 5 with no failures stopped the sweep: %s", why)
	}
	why := stopReason([]stats.Gate{pass, g}, &l)
	if !strings.Contains(why, "ttft.p95 > 500ms") || !strings.Contains(why, "concurrency 8") {
		t.Errorf("stop reason %q; want the gate and the level", why)
	}
}

// TestVerdictNamesUnjudgedLevels: a level with too few streams for an
// interval is said to be unjudged, not judged calm.
func TestVerdictNamesUnjudgedLevels(t *testing.T) {
	t.Parallel()
	r := &Result{Kind: KindConcurrency, Levels: []Level{synthLevel(t, 1, 1, 180, 181), synthLevel(t, 2, 2, 180, 181, 182, 183)}}
	if v := Verdict(r); !strings.Contains(v, "not judged: concurrency 1 had fewer than 3 streams") {
		t.Errorf("verdict %q; want concurrency 1 named as not judged", v)
	}
}

// TestVerdictWhenNoLevelCouldBeJudged: a sweep whose adjacent levels never
// both had enough streams for an interval says it judged nothing, not
// "knee: none" as if it had looked and found it calm.
func TestVerdictWhenNoLevelCouldBeJudged(t *testing.T) {
	t.Parallel()
	r := &Result{Kind: KindConcurrency, Levels: []Level{synthLevel(t, 1, 1, 180, 181), synthLevel(t, 2, 2, 180, 181)}}
	v := Verdict(r)
	if !strings.HasPrefix(v, "knee: not judged: ") || !strings.Contains(v, "concurrency 1, 2 had fewer") || !strings.Contains(v, "--runs-per-level") {
		t.Errorf("verdict %q; want 'not judged', the levels and what to do", v)
	}
	judged := &Result{Kind: KindConcurrency, Levels: []Level{synthLevel(t, 1, 1, 180, 181), synthLevel(t, 2, 2, 180, 181, 182, 183), synthLevel(t, 4, 4, 180, 181, 182, 183)}}
	if v := Verdict(judged); !strings.HasPrefix(v, "knee: none — ") {
		t.Errorf("verdict %q; levels 2 and 4 could be judged", v)
	}
	// The same rule as FindKnee's: a level cut short is not compared, so
	// the one pair with enough streams is not judged either.
	judged.Levels[2].Partial = true
	if v := Verdict(judged); !strings.HasPrefix(v, "knee: not judged: ") || !strings.Contains(v, "concurrency 4 was cut short") {
		t.Errorf("verdict %q; want 'not judged' naming concurrency 4 as cut short", v)
	}
	judged.Levels[2].Partial, judged.Levels[2].Throughput.TokensPerS = false, nil
	if v := Verdict(judged); !strings.HasPrefix(v, "knee: not judged: ") || !strings.Contains(v, "concurrency 4 had no throughput") {
		t.Errorf("verdict %q; want 'not judged' naming concurrency 4 as without throughput", v)
	}
}
