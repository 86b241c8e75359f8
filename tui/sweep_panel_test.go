package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// sweepLevel is a finished level with the figures the panel shows.
func sweepLevel(lv, ttftP95, tps float64) sweep.Level {
	l := sweep.Level{Level: lv, Kind: sweep.KindConcurrency, Concurrency: int(lv), Streams: 8, Completed: 8}
	l.Metrics = stats.Metrics{"ttft_ms": {P95: &ttftP95, P50: &ttftP95}}
	l.Throughput.TokensPerS = &tps
	return l
}

// TestRunScreenShowsTheSweep plays a sweep's goroutine: the header names
// the level in progress, the panel grows a row per finished level, and the
// knee is marked once found.
func TestRunScreenShowsTheSweep(t *testing.T) {
	h := &harness{t: t, now: time.Unix(1000, 0)}
	sp := &sweep.Plan{Kind: sweep.KindConcurrency, Levels: []float64{1, 2, 4, 8, 16}, Base: probe.Plan{
		Target: probe.Target{URL: runWorkload.Target, Format: adapters.Lookup("openai-chat")}, Runs: 8,
		Options: probe.Options{StallMS: stats.DefaultStall},
	}}
	rc := RunConfig{Plan: probe.Plan{Runs: 40, Options: sp.Base.Options}, Workload: runWorkload, Load: "sweep of concurrency 1,2,4,8,16", Sweep: sp}
	h.m = NewRun(context.Background(), rc, Config{Clock: func() time.Time { return h.now }})
	h.m.after = func(d time.Duration, msg tea.Msg) tea.Cmd {
		h.sched = append(h.sched, scheduled{h.now.Add(d), msg})
		return nil
	}
	rs := h.m.rs
	rs.startedAt = h.now
	h.m.rs.armTick()
	t.Cleanup(h.m.Wait)
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})

	running := 4.0
	rs.sweep.update(&sweep.Result{Kind: sp.Kind, Planned: sp.Levels, Running: &running,
		Levels: []sweep.Level{sweepLevel(1, 182, 34), sweepLevel(2, 183, 68)}})
	h.advance(100 * time.Millisecond)
	s := h.screen()
	if !strings.Contains(s, "level 3/5 · concurrency 4") || !strings.Contains(s, "running…") || !strings.Contains(s, "2 of 5 levels") {
		t.Fatalf("while concurrency 4 runs the screen lacks the level, its row or the count:\n%s", s)
	}

	done := []sweep.Level{sweepLevel(1, 182, 34), sweepLevel(2, 183, 68), sweepLevel(4, 182, 136), sweepLevel(8, 1300, 136), sweepLevel(16, 1300, 136)}
	rs.sweep.update(&sweep.Result{Kind: sp.Kind, Planned: sp.Levels, Levels: done,
		Knee: &sweep.Knee{Level: 8, Reason: "at concurrency 8 ttft p95 rose 614% over concurrency 4 while throughput did not follow"}})
	h.advance(100 * time.Millisecond)
	s = h.screen()
	var kneeRow string
	for _, l := range strings.Split(s, "\n") {
		if strings.Contains(l, "◀ knee") {
			kneeRow = l
		}
	}
	if !strings.HasPrefix(strings.TrimSpace(kneeRow), "8 ") || !strings.Contains(s, "knee at 8") || !strings.Contains(s, "knee: at concurrency 8 ttft p95 rose") {
		t.Errorf("after the sweep the knee row is %q; want the concurrency 8 row marked and the verdict:\n%s", kneeRow, s)
	}
	if strings.Contains(s, "level 3/5") {
		t.Errorf("the header still names a level in progress after the last:\n%s", s)
	}
	if r := h.m.SweepResult(); r == nil || r.Knee == nil || r.Knee.Level != 8 {
		t.Errorf("SweepResult = %+v; want the knee at 8", r)
	}
	// At 80 columns the table drops columns, and the title names them
	// (they went unsaid).
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	s = h.screen()
	if !strings.Contains(s, "left out at this width: stalls/str, itl p50") || strings.Contains(s, "itl p50  ") {
		t.Errorf("at 80 columns the sweep's title does not name the columns it leaves out:\n%s", s)
	}
}
