package views

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"charm.land/bubbles/v2/table"
	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// runRecords are a run's records replayed from fixture scenarios: five
// streams with a mid-sentence stall, one in-stream error, one steady, and a
// warmup stream first; every third started late on an open-loop schedule.
func runRecords(t testing.TB) []*record.Record {
	warm := replay(t, "steady", 0)
	warm.Phase = record.PhaseWarmup
	recs := []*record.Record{warm}
	for i, sc := range []string{"mid-sentence-stall", "mid-sentence-stall", "in-stream-error", "mid-sentence-stall", "steady", "mid-sentence-stall", "mid-sentence-stall"} {
		r := replay(t, sc, i+1)
		r.Phase = record.PhaseMeasure
		r.PromptID = []string{"short", "medium", "long"}[i%3]
		r.RunOffsetMS = float64(i) * 200
		intended := r.RunOffsetMS - float64(i%3)
		r.IntendedStartMS = &intended
		recs = append(recs, r)
	}
	return recs
}

func runSummary(recs []*record.Record, st *stats.RunStats) *stats.Summary {
	a := stats.NewAggregate(stats.DefaultStall)
	for _, r := range recs {
		a.Add(r)
	}
	if st != nil {
		a.SetRun(*st)
	}
	s := a.Summary(stats.Workload{})
	return &s
}

// TestRunViews renders the run screen's views at 80 and 120 columns and
// compares them with golden files (go test ./views -update rewrites them).
func TestRunViews(t *testing.T) {
	st := NewStyles(true, false)
	recs := runRecords(t)
	// A stream still running: the first half of a stalled stream, derived
	// as the live view derives it.
	live := replay(t, "mid-sentence-stall", 8)
	live.Frames = live.Frames[:30]
	live.PromptID = "short"
	live.DurationMS = live.Frames[29].TMS
	if err := stats.Derive(live, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	lag := stats.NewDist([]float64{0.2, 0.4, 0.3, 12.5, 0.6, 0.5, 0.4})
	snaps := map[string]*RunSnapshot{
		"closed": {
			Target: recs[1].Target, Format: "openai-chat", Model: "mid-sentence-stall", Load: "closed loop, 4 in flight · 40 runs",
			ElapsedMS: 4321, Runs: 40, Attempted: 11, Admitted: 11, InFlight: 4, Finished: 7, Warmup: 1,
			Summary: runSummary(recs, nil),
		},
		"open": {
			Target: recs[1].Target, Format: "openai-chat", Model: "mid-sentence-stall", Load: "open loop, constant arrivals at 5/s",
			State: RunDone, ElapsedMS: 10230, DurationMS: 10000, OpenLoop: true,
			Attempted: 9, Admitted: 7, NotAdmitted: 2, Finished: 7, Warmup: 1,
			Summary: runSummary(recs, &stats.RunStats{NotAdmitted: 2, Lag: lag, LagBoundMS: stats.ScheduleLagBoundMS, ClientLimited: true}),
		},
		"openlive": {
			Target: recs[1].Target, Format: "openai-chat", Load: "open loop",
			ElapsedMS: 2500, DurationMS: 10000, OpenLoop: true, Attempted: 9, Admitted: 9, InFlight: 2, Finished: 7,
			LagMaxMS: 14.2, LagOver: 1, Summary: runSummary(recs, nil),
		},
		"stopped": {
			Target: recs[1].Target, State: RunStopped, ElapsedMS: 800, Runs: 40, Summary: runSummary(nil, nil),
		},
	}
	var ttft, gaps Buckets
	for _, r := range recs[1:] {
		if r.TTFTMS != nil {
			ttft.Add(*r.TTFTMS)
		}
		for _, g := range r.Gaps() {
			gaps.Add(g)
		}
	}
	all := append(recs[1:len(recs):len(recs)], live)
	for _, w := range []int{80, 120} {
		out := map[string]string{
			"heatmap":  RunHeatmap(all, 3, stats.DefaultStall, false, w, 7, &st),
			"heattime": RunHeatmap(all, len(all)-1, stats.DefaultStall, true, w, 5, &st),
			"ttft":     Histogram(&ttft, math.Inf(1), "no first token yet", w/2, 6, &st),
			"gaps":     Histogram(&gaps, stats.DefaultStall, "no gaps yet", w/2, 8, &st),
			"gapshort": Histogram(&gaps, stats.DefaultStall, "no gaps yet", w/2, 2, &st),
			"caption":  StreamCaption(recs[3], PhaseDone, &st) + "\n" + StreamCaption(live, PhaseStreaming, &st),
			"table":    streamTable(append(recs[:len(recs):len(recs)], live), w),
		}
		for name, s := range snaps {
			out["header/"+name] = RunHeader(s, "", w, 2, &st)
			out["counts/"+name] = RunCounts(s, w, 10, &st)
		}
		for view, s := range out {
			t.Run(fmt.Sprintf("%s/%d", view, w), func(t *testing.T) {
				if view != "caption" { // a caption goes in a title line, which cuts it
					checkWidth(t, s, w)
				}
				golden.RequireEqual(t, s)
			})
		}
	}
}

// streamTable renders the stream table as the run screen does, the last
// row selected.
func streamTable(recs []*record.Record, w int) string {
	cols := StreamColumns(w)
	rows := make([]table.Row, len(recs))
	for i, r := range recs {
		phase := PhaseDone
		if i == len(recs)-1 {
			phase = PhaseStreaming
		}
		rows[i] = StreamRow(r, phase, cols)
	}
	tb := table.New(table.WithColumns(cols), table.WithRows(rows), table.WithWidth(w), table.WithHeight(len(rows)+1), table.WithFocused(true))
	st := NewStyles(true, false)
	tb.SetStyles(StreamTableStyles(&st))
	tb.SetCursor(len(rows) - 1)
	return tb.View()
}

// TestRunViewFigures checks what a user must read on the run screen: the
// accounting with failures by class, the figures with their n, the stall
// in the gap histogram, the selected stream marked on the heatmap, and a
// client-limited open loop flagged.
func TestRunViewFigures(t *testing.T) {
	st := NewStyles(true, false)
	recs := runRecords(t)
	s := &RunSnapshot{Runs: 40, Finished: 7, Attempted: 11, Admitted: 11, InFlight: 4, Warmup: 1, Summary: runSummary(recs, nil)}
	counts := ansi.Strip(RunCounts(s, 120, 10, &st))
	sum := s.Summary
	for _, want := range []string{
		"7/40 recorded", "attempted 11", "in flight 4", "completed 6", "failed 1 (in_stream 1)", "warmup 1 (excluded)",
		"ttft p50 " + textfmt.OptMS(sum.Metrics["ttft_ms"].P50), fmt.Sprintf("n=%d", sum.Metrics["gap_ms"].N),
		"stalls 10 (5 mid-sentence)",
	} {
		if !strings.Contains(counts, want) {
			t.Errorf("counts lack %q:\n%s", want, counts)
		}
	}
	var gaps Buckets
	for _, r := range recs {
		for _, g := range r.Gaps() {
			gaps.Add(g)
		}
	}
	if h := ansi.Strip(Histogram(&gaps, stats.DefaultStall, "", 60, 3, &st)); !strings.Contains(h, "500 ms–1 s █") {
		t.Errorf("a short gap histogram lost the stall bucket:\n%s", h)
	}
	// The selected stream's label is styled apart from the others'.
	heat := strings.Split(RunHeatmap(recs, 2, stats.DefaultStall, false, 80, 10, &st), "\n")
	prefix := func(l string) string { return l[:strings.Index(l, "#")] }
	if prefix(heat[2]) == prefix(heat[1]) || prefix(heat[1]) != prefix(heat[3]) || !strings.Contains(heat[2], "#3") {
		t.Errorf("selected stream not highlighted:\n%q", heat[:4])
	}
	open := &RunSnapshot{OpenLoop: true, State: RunDone, Summary: runSummary(recs, &stats.RunStats{
		Lag: stats.NewDist([]float64{1, 50}), LagBoundMS: 10, ClientLimited: true,
	})}
	if c := ansi.Strip(RunCounts(open, 120, 10, &st)); !strings.Contains(c, "CLIENT-LIMITED") || !strings.Contains(c, "client queue p50") {
		t.Errorf("open loop not flagged client-limited:\n%s", c)
	}
}

// TestRunHeaderKeepsTheLoad: at 120 columns the run's second header line
// cut its load ("closed loop, 2 in f…"); it leaves the format out first.
func TestRunHeaderKeepsTheLoad(t *testing.T) {
	st := NewStyles(true, false)
	s := &RunSnapshot{Target: "http://127.0.0.1:40219/v1/chat/completions", Format: "openai-chat", Model: "mid-sentence-stall",
		Load: "closed loop, 2 in flight · 7 runs", State: RunDone, ElapsedMS: 9970}
	for _, tc := range []struct {
		width      int
		wantFormat bool
	}{{200, true}, {120, false}} {
		lines := strings.Split(ansi.Strip(RunHeader(s, "", tc.width, 2, &st)), "\n")
		if len(lines) != 2 || !strings.Contains(lines[1], "closed loop, 2 in flight · 7 runs") {
			t.Errorf("%d columns: the load is cut: %q", tc.width, lines)
			continue
		}
		if got := strings.Contains(lines[1], "format openai-chat"); got != tc.wantFormat {
			t.Errorf("%d columns: format shown %v, want %v: %q", tc.width, got, tc.wantFormat, lines[1])
		}
	}
}

// TestRunHeaderDropsWholeLoadParts: a sweep's load ("sweep of
// concurrency 1,2,4,8,16 · 16 runs per level · each after 1 warmup per
// prompt") did not fit 120 columns beside its target and was cut inside
// a part ("· each a…"), the URL cut too; its last parts go whole first,
// the URL kept whole.
func TestRunHeaderDropsWholeLoadParts(t *testing.T) {
	st := NewStyles(true, false)
	s := &RunSnapshot{Target: "http://127.0.0.1:18091/v1/chat/completions", Format: "openai-chat", Model: "steady",
		Load: "sweep of concurrency 1,2,4,8,16 · 16 runs per level · each after 1 warmup per prompt", State: RunDone}
	lines := strings.Split(ansi.Strip(RunHeader(s, "", 120, 2, &st)), "\n")
	want := "target http://127.0.0.1:18091/v1/chat/completions · model steady · sweep of concurrency 1,2,4,8,16 · 16 runs per level"
	if got := strings.TrimRight(lines[len(lines)-1], " "); got != want {
		t.Errorf("120 columns:\n got %q\nwant %q", got, want)
	}
}

// TestRunCountsSayFinishedOnly: with streams in flight and none finished
// the figures line read "ttft — · … · stalls 0" above in-flight rows that
// showed a ttft and a stall; it sums finished streams only and says so,
// and says nothing of the kind once no stream is in flight.
func TestRunCountsSayFinishedOnly(t *testing.T) {
	st := NewStyles(false, false)
	figures := func(s *RunSnapshot) string {
		lines := strings.Split(ansi.Strip(RunCounts(s, 120, 10, &st)), "\n")
		for _, l := range lines {
			if strings.Contains(l, "ttft") {
				return l
			}
		}
		t.Fatalf("no figures line:\n%s", strings.Join(lines, "\n"))
		return ""
	}
	running := &RunSnapshot{Runs: 12, Attempted: 4, Admitted: 4, InFlight: 4, Summary: runSummary(nil, nil)}
	if got := figures(running); !strings.HasPrefix(got, "finished streams only: ttft —") || !strings.Contains(got, "stalls 0") {
		t.Errorf("in flight, none finished: figures line %q, want it to start \"finished streams only: ttft —\" and keep \"stalls 0\"", got)
	}
	done := &RunSnapshot{State: RunDone, Runs: 7, Finished: 8, Warmup: 1, Summary: runSummary(runRecords(t), nil)}
	if got := figures(done); strings.Contains(got, "finished streams only") || !strings.HasPrefix(got, "ttft p50 ") {
		t.Errorf("nothing in flight: figures line %q, want it to start \"ttft p50 \" unqualified", got)
	}
}

// TestStreamRowTokensWithoutACount: a stream still waiting for its first
// frame, or failed before any, has no token count: its row says — as the
// clocks do, not "≈0"; one with content counts it.
func TestStreamRowTokensWithoutACount(t *testing.T) {
	cols := StreamColumns(120)
	tokens := slices.IndexFunc(cols, func(c table.Column) bool { return c.Title == ColTokens })
	if tokens < 0 {
		t.Fatal("no tokens column at 120 columns")
	}
	waiting := &record.Record{Seq: 6, TokensSource: "approx"}
	cut := replay(t, "abort-midstream", 0)
	for _, tc := range []struct {
		r     *record.Record
		phase Phase
		want  string
	}{{waiting, PhaseWaiting, "—"}, {cut, PhaseDone, "≈12"}} {
		if got := StreamRow(tc.r, tc.phase, cols)[tokens]; got != tc.want {
			t.Errorf("%s stream, %d content frames: tokens %q, want %q", tc.r.Status, tc.r.ContentFrames, got, tc.want)
		}
	}
}
