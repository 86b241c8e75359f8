package fleet_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/fleet"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// randomRecord is a derived stream with a lognormal TTFT and exponential
// gaps, some of them stalls; every fifth one fails after its first frames,
// one in 11 is a 429 with no frames at all (no token count) and one in 3
// carries the server's usage report (the rest are approximated).
func randomRecord(t *testing.T, rng *rand.Rand, host string, seq int) *record.Record {
	r := &record.Record{RunID: host, Seq: seq, Phase: record.PhaseMeasure, PromptID: "p", Target: "http://x/v1/chat/completions",
		Format: "openai-chat", Host: host}
	at := math.Exp(rng.NormFloat64()*0.5 + 5)
	if seq%11 == 6 {
		r.Error, r.DurationMS = &record.Error{Class: record.ErrHTTP429, Status: 429}, at
		if err := stats.Derive(r, stats.DefaultStall); err != nil {
			t.Fatal(err)
		}
		return r
	}
	n := 5 + rng.IntN(30)
	for i := range n {
		r.Frames = append(r.Frames, record.Frame{TMS: at, Read: i, Bytes: 4, Kind: adapters.KindContent, Text: " w"})
		at += rng.ExpFloat64() * 30
	}
	if seq%3 == 0 {
		r.Frames = append(r.Frames, record.Frame{TMS: at, Read: len(r.Frames), Kind: adapters.KindUsage, Usage: &n})
	}
	if seq%5 != 4 {
		r.Frames = append(r.Frames, record.Frame{TMS: at, Read: len(r.Frames), Kind: adapters.KindEnd})
	} else {
		r.Error = &record.Error{Class: record.ErrReset}
	}
	r.DurationMS = at + 1
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	return r
}

// Three hosts' summaries, through JSON as drip run --json writes them,
// merge to the counts of the pooled records exactly and to their
// percentiles within the documented bound.
func TestMergedSummariesMatchThePooledRecords(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 8))
	pooled := stats.NewAggregate(stats.DefaultStall)
	var sums []stats.Summary
	for h, host := range []string{"a", "b", "c"} {
		agg := stats.NewAggregate(stats.DefaultStall)
		for i := range 300 + 100*h {
			r := randomRecord(t, rng, host, i)
			agg.Add(r)
			pooled.Add(r)
		}
		b, err := json.Marshal(agg.Summary(stats.Workload{Target: "http://x/v1/chat/completions", Format: "openai-chat", Runs: 300 + 100*h}))
		if err != nil {
			t.Fatal(err)
		}
		var s stats.Summary
		if err := json.Unmarshal(b, &s); err != nil {
			t.Fatal(err)
		}
		sums = append(sums, s)
	}
	m, err := fleet.MergeSummaries(sums, []string{"a.json", "b.json", "c.json"})
	if err != nil {
		t.Fatal(err)
	}
	want := pooled.Summary(stats.Workload{})
	if m.Streams.Admitted != want.Streams.Admitted || m.Streams.Failed != want.Streams.Failed || m.Streams.FailedBy[record.ErrReset] != want.Streams.FailedBy[record.ErrReset] ||
		m.Stalls.Count != want.Stalls.Count || *m.Stalls.LongestMS != *want.Stalls.LongestMS || m.Throughput.OutputTokens != want.Throughput.OutputTokens {
		t.Errorf("merged accounting %+v stalls %+v tokens %d, pooled %+v stalls %+v tokens %d",
			m.Streams, m.Stalls, m.Throughput.OutputTokens, want.Streams, want.Stalls, want.Throughput.OutputTokens)
	}
	if m.Streams.WithTokenCount != want.Streams.WithTokenCount || m.TokensApproxPct == nil || want.TokensApproxPct == nil ||
		math.Abs(*m.TokensApproxPct-*want.TokensApproxPct) > 1e-9 {
		t.Errorf("merged tokens_approx_pct %s of %d streams with a token count, pooled %s of %d",
			fmtPtr(m.TokensApproxPct), m.Streams.WithTokenCount, fmtPtr(want.TokensApproxPct), want.Streams.WithTokenCount)
	}
	if m.Signals != want.Signals || want.Signals.ContentFrames == 0 { // the diagnosis reads them
		t.Errorf("merged signals %+v, pooled %+v", m.Signals, want.Signals)
	}
	if m.Workload.Runs != 1200 || strings.Join(m.Workload.Hosts, ",") != "a,b,c" {
		t.Errorf("merged workload runs %d hosts %v, want 1200 and a,b,c", m.Workload.Runs, m.Workload.Hosts)
	}
	for _, tc := range []struct {
		name      string
		got, want stats.Dist
	}{
		{"ttft", m.Metrics["ttft_ms"], want.Metrics["ttft_ms"]}, {"gap", m.Metrics["gap_ms"], want.Metrics["gap_ms"]},
		{"e2e", m.Metrics["e2e_ms"], want.Metrics["e2e_ms"]}, {"itl", m.Metrics["itl_ms"], want.Metrics["itl_ms"]},
	} {
		g, w := tc.got, tc.want
		if g.N != w.N || *g.Min != *w.Min || *g.Max != *w.Max || math.Abs(*g.Mean-*w.Mean) > 1e-9**w.Mean || !g.Histogram {
			t.Errorf("%s: n/min/max/mean %d %v %v %v (histogram %v), pooled %d %v %v %v", tc.name, g.N, *g.Min, *g.Max, *g.Mean, g.Histogram, w.N, *w.Min, *w.Max, *w.Mean)
		}
		for _, p := range []string{"p50", "p95", "p99"} {
			gv, _ := g.Stat(p)
			wv, _ := w.Stat(p)
			if math.Abs(*gv-*wv) > stats.HistRelativeError*math.Abs(*wv)+stats.HistMin {
				t.Errorf("%s %s: merged %v, over the raw records %v: off by %.3f%%, bound %.3f%%", tc.name, p, *gv, *wv, 100*math.Abs(*gv-*wv) / *wv, 100*stats.HistRelativeError)
			}
		}
	}
	if !strings.Contains(m.Conventions.Percentiles, "histograms of 3 summaries") {
		t.Errorf("conventions.percentiles %q does not name the 3 summaries", m.Conventions.Percentiles)
	}
	if one, err := fleet.MergeSummaries(sums[:1], []string{"a.json"}); err != nil || !strings.Contains(one.Conventions.Percentiles, "histograms of 1 summary ") {
		t.Errorf("one summary: %v, conventions.percentiles %q", err, one.Conventions.Percentiles)
	}
	// The merged summary merges again, like any other.
	if again, err := fleet.MergeSummaries([]stats.Summary{m, sums[0]}, []string{"m", "a"}); err != nil || again.Metrics["ttft_ms"].N != m.Metrics["ttft_ms"].N+sums[0].Metrics["ttft_ms"].N {
		t.Errorf("re-merge: %v, ttft n %d", err, again.Metrics["ttft_ms"].N)
	}
}

func TestMergeSummariesRefusals(t *testing.T) {
	agg := stats.NewAggregate(stats.DefaultStall)
	agg.Add(randomRecord(t, rand.New(rand.NewPCG(1, 1)), "a", 0))
	a := agg.Summary(stats.Workload{Target: "http://x", Format: "openai-chat", Model: "m1"})
	b := a
	b.Workload.Model = "m2"
	old := a
	old.Histograms = nil
	noCount := a
	noCount.Streams.WithTokenCount = 0
	for _, tc := range []struct {
		sums []stats.Summary
		want string
	}{
		{[]stats.Summary{a, b}, `model is "m1" in a.json and "m2" in b.json`},
		{[]stats.Summary{a, old}, "b.json carries no histograms"},
		{[]stats.Summary{a, noCount}, "b.json gives tokens_approx_pct without streams.with_token_count"},
	} {
		if _, err := fleet.MergeSummaries(tc.sums, []string{"a.json", "b.json"}); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("error %v, want %q", err, tc.want)
		}
	}
}

func fmtPtr(v *float64) string {
	if v == nil {
		return "null"
	}
	return strconv.FormatFloat(*v, 'g', -1, 64)
}

// A summary's numbers come from a file: merge refuses counts that would
// overflow when added, histogram counts that wrap, and sums or buckets
// past what a float holds, naming the file, exit 2. Counts of 2^63−1
// merged to −2 with exit 0; a histogram sum of 1e308 or an offset of 2^20
// ended in a raw "json: unsupported value: +Inf" naming no file.
func TestMergeSummaryFilesRefusesOverflowAndNonFinite(t *testing.T) {
	t.Parallel()
	agg := stats.NewAggregate(stats.DefaultStall)
	rng := rand.New(rand.NewPCG(3, 3))
	for seq := range 20 {
		agg.Add(randomRecord(t, rng, "a", seq))
	}
	base := agg.Summary(stats.Workload{Target: "http://x", Format: "openai-chat", Model: "m"})
	hist := func(s *stats.Summary, edit func(*stats.HistogramJSON)) {
		h := s.Histograms.Metrics["ttft_ms"]
		h.Counts = slices.Clone(h.Counts)
		edit(&h)
		s.Histograms.Metrics["ttft_ms"] = h
	}
	for _, tc := range []struct {
		name string
		edit func(*stats.Summary)
		want string
	}{
		{"completed 2^63−1", func(s *stats.Summary) { s.Streams.Completed = math.MaxInt }, "b.json: streams.completed: adding 9223372036854775807"},
		{"a negative count", func(s *stats.Summary) { s.Stalls.Count = -3 }, "b.json: stalls.count is -3"},
		{"failed_by 2^63−1", func(s *stats.Summary) {
			for k := range s.Streams.FailedBy {
				s.Streams.FailedBy[k] = math.MaxInt
			}
		}, "b.json: streams.failed_by_class.http_429: adding"},
		{"counts that wrap", func(s *stats.Summary) {
			hist(s, func(h *stats.HistogramJSON) { h.Zero = math.MaxUint64; h.Counts[0]++ })
		}, "b.json: histogram ttft_ms: its counts overflow"},
		{"a sum of 1e308", func(s *stats.Summary) { hist(s, func(h *stats.HistogramJSON) { h.Sum = 1e308 }) }, "b.json: histogram ttft_ms: histogram sum 1e+308 is past"},
		{"an offset of 2^20", func(s *stats.Summary) { hist(s, func(h *stats.HistogramJSON) { h.Offset = 1 << 20 }) }, "b.json: histogram ttft_ms: histogram offset 1048576"},
		{"an offset of −2^20", func(s *stats.Summary) { hist(s, func(h *stats.HistogramJSON) { h.Offset = -1 << 20 }) }, "b.json: histogram ttft_ms: histogram offset -1048576"},
		{"tokens_approx_pct 1e300", func(s *stats.Summary) { s.TokensApproxPct = new(1e300) }, "b.json: tokens_approx_pct 1e+300"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			var paths []string
			for _, name := range []string{"a.json", "b.json"} {
				b, _ := json.Marshal(base)
				var s stats.Summary
				if err := json.Unmarshal(b, &s); err != nil {
					t.Fatal(err)
				}
				if name == "b.json" || tc.name == "a sum of 1e308" { // 1e308 twice is past a float
					tc.edit(&s)
				}
				b, err := json.Marshal(s)
				if err != nil {
					t.Fatal(err)
				}
				paths = append(paths, filepath.Join(dir, name))
				if err := os.WriteFile(paths[len(paths)-1], b, 0o600); err != nil {
					t.Fatal(err)
				}
			}
			var out bytes.Buffer
			err := fleet.MergeSummaryFiles(t.Context(), paths, "", &out, io.Discard)
			var ee *pipeline.ExitError
			if !errors.As(err, &ee) || ee.Code != pipeline.ExitUsage || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want exit 2 saying %q", err, tc.want)
			}
		})
	}
}
