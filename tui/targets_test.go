package tui

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// targetSource is a target the test plays: each stream hands its observer
// over on its own channel and ends when released or canceled.
type targetSource struct {
	observers chan func(probe.Event)
	release   chan struct{}
}

func (ts *targetSource) source(name string) Source {
	return Source{Name: name, Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
		ts.observers <- observe
		select {
		case <-ctx.Done():
		case <-ts.release:
		}
		return &record.Record{Seq: seq, Status: record.StatusCanceled}
	}}
}

// newTargetsHarness is the harness on the targets screen of one target per
// scenario name.
func newTargetsHarness(t testing.TB, alternate bool, names ...string) (*harness, []*targetSource) {
	h := &harness{t: t, now: time.Unix(1000, 0)}
	var srcs []Source
	var tss []*targetSource
	for _, n := range names {
		ts := &targetSource{observers: make(chan func(probe.Event), 4), release: make(chan struct{}, 4)}
		tss = append(tss, ts)
		srcs = append(srcs, ts.source(n))
	}
	h.m = NewTargets(context.Background(), Config{Sources: srcs, Clock: func() time.Time { return h.now }}, alternate)
	h.m.after = func(d time.Duration, msg tea.Msg) tea.Cmd {
		h.sched = append(h.sched, scheduled{h.now.Add(d), msg})
		return nil
	}
	t.Cleanup(h.m.Wait)
	return h, tss
}

// playRound plays each target's recorded scenario through its observer,
// read by read on the synthetic clock, all targets in step.
func playRound(h *harness, tss []*targetSource, recs []*record.Record) {
	obs := make([]func(probe.Event), len(tss))
	for i, ts := range tss {
		obs[i] = <-ts.observers
	}
	evs := make([][]probe.Event, len(recs))
	for i, r := range recs {
		evs[i] = events(r)
	}
	for step := 0; ; step++ {
		more := false
		for i := range evs {
			if step < len(evs[i]) {
				obs[i](evs[i][step])
				more = true
			}
		}
		if !more {
			break
		}
		h.update(feedMsg{})
		h.advance(40 * time.Millisecond)
	}
	h.advance(100 * time.Millisecond)
}

// TestTargetsRace races a steady and a stalling target: both panes, the
// stall marked in the second, the deltas, and after three rounds (r, r)
// the intervals and a scatter point per run for each target; every page
// fits 80×24, 120×40 and 200×50 with ? and q in the footer.
func TestTargetsRace(t *testing.T) {
	h, tss := newTargetsHarness(t, false, "steady", "stall")
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.m.Init()
	for round := range 3 {
		if round > 0 {
			h.update(press("r"))
		}
		playRound(h, tss, []*record.Record{recorded(t, "steady"), recorded(t, "mid-sentence-stall")})
	}
	runs := h.m.TargetRuns()
	if len(runs) != 2 || len(runs[0]) != 3 || len(runs[1]) != 3 {
		t.Fatalf("runs per target: want 3 and 3, got %d targets %v", len(runs), lens(runs))
	}
	for _, size := range [][2]int{{80, 24}, {120, 40}, {200, 50}} {
		h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		h.update(press("1"))
		live := h.screen()
		checkFits(t, live, size[0], size[1])
		wantAll(t, size, live, " A  steady", " B  stall", "⏸ 700 ms", "gap p99", "? help", "q quit")
		h.update(press("2"))
		clocks := h.screen()
		checkFits(t, clocks, size[0], size[1])
		wantAll(t, size, clocks, "A 3 runs", "B 3 runs", "[", "+675", "? help", "q quit")
		h.update(press("3"))
		sc := h.screen()
		checkFits(t, sc, size[0], size[1])
		wantAll(t, size, sc, "stall 250 ms", "A ttft", "B gap p99", "runs 1–3", "? help", "q quit")
		if !strings.Contains(sc, "B") || !strings.Contains(sc, "A") {
			t.Errorf("%v: scatter without its points:\n%s", size, sc)
		}
	}
}

// TestTargetsRerunKeepsTheStreamsItCut: r while a target still streamed
// cut its stream short, and the canceled record came under the old tag
// and was dropped: the clocks said "B 1 run" where the comparison printed
// on quit (made of every record) counted 2. It joins the target's runs.
func TestTargetsRerunKeepsTheStreamsItCut(t *testing.T) {
	h, tss := newTargetsHarness(t, false, "steady", "stall")
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.m.Init()
	a, b := <-tss[0].observers, <-tss[1].observers
	steady, stall := recorded(t, "steady"), recorded(t, "mid-sentence-stall")
	h.push(a, events(steady)...)
	h.push(b, events(stall)[:10]...)
	h.update(press("r"))
	cut := &record.Record{Seq: 0, Status: record.StatusCanceled, Frames: stall.Frames[:8], DurationMS: stall.Frames[7].TMS + 1}
	h.push(b, probe.Event{Type: probe.EventDone, Record: cut})
	playRound(h, tss, []*record.Record{steady, stall})
	if runs := h.m.TargetRuns(); len(runs) != 2 || len(runs[0]) != 2 || len(runs[1]) != 2 {
		t.Fatalf("runs per target: want 2 and 2 (B's cut short among them), got %v", lens(runs))
	}
	h.update(press("2"))
	wantAll(t, [2]int{120, 40}, h.screen(), "A 2 runs", "B 2 runs")
}

// TestTargetsAlternate checks --alternate: the second target is sent the
// prompt only once the first has finished.
func TestTargetsAlternate(t *testing.T) {
	h, tss := newTargetsHarness(t, true, "a", "b")
	var mu sync.Mutex
	var log []string
	for i := range tss {
		name := string(rune('a' + i))
		inner := h.m.ts.panes[i].src.Stream
		h.m.ts.panes[i].src.Stream = func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
			mu.Lock()
			log = append(log, "start "+name)
			mu.Unlock()
			r := inner(ctx, seq, observe)
			mu.Lock()
			log = append(log, "end "+name)
			mu.Unlock()
			return r
		}
	}
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.m.Init()
	<-tss[0].observers
	tss[0].release <- struct{}{}
	select {
	case <-tss[1].observers:
	case <-time.After(10 * time.Second):
		t.Fatal("b was never sent the prompt after a ended")
	}
	mu.Lock()
	defer mu.Unlock()
	if got := strings.Join(log, ", "); got != "start a, end a, start b" {
		t.Errorf("order: %s, want start a, end a, start b", got)
	}
}

func lens(runs [][]*record.Record) []int {
	out := make([]int, len(runs))
	for i, r := range runs {
		out[i] = len(r)
	}
	return out
}

func wantAll(t *testing.T, size [2]int, screen string, wants ...string) {
	t.Helper()
	for _, w := range wants {
		if !strings.Contains(screen, w) {
			t.Errorf("%dx%d: no %q on\n%s", size[0], size[1], w, screen)
		}
	}
}

// TestTargetsPagesCutNoWord: at 80×24, four targets' trend keeps the rows
// it leaves out whole in its title (it read "6 of 8 rows: a taller
// terminal shows every t"), and the scatter's caption ends on a whole
// part, never a stub ("· t…").
func TestTargetsPagesCutNoWord(t *testing.T) {
	h, tss := newTargetsHarness(t, false, "a", "b", "c", "d")
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.m.Init()
	playRound(h, tss, []*record.Record{recorded(t, "steady"), recorded(t, "mid-sentence-stall"), recorded(t, "steady"), recorded(t, "mid-sentence-stall")})
	h.update(press("3"))
	s := h.screen()
	checkFits(t, s, 80, 24)
	wantAll(t, [2]int{80, 24}, s, "trend  6 of 8 rows: a taller terminal shows every target ─")
	for _, l := range strings.Split(s, "\n") {
		if strings.HasSuffix(strings.TrimRight(l, " "), "…") {
			t.Errorf("a line cut at the width: %q\n%s", l, s)
		}
	}
}

// TestTargetsAheadMarkNoCount: of two targets alike, one a run ahead
// (B finished its second, A still streams it) has more stalls by that run
// alone: its count carries no worse mark ("stalls 2 vs 4, +100% !") until
// the runs are even again.
func TestTargetsAheadMarkNoCount(t *testing.T) {
	h, tss := newTargetsHarness(t, false, "a", "b")
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.m.Init()
	stall := func() *record.Record { return recorded(t, "mid-sentence-stall") }
	playRound(h, tss, []*record.Record{stall(), stall()})
	h.update(press("r"))
	obsA, obsB := <-tss[0].observers, <-tss[1].observers
	evs := events(stall())
	h.push(obsA, evs[:4]...)
	h.push(obsB, evs...)
	h.advance(100 * time.Millisecond)
	stallsRow := func() string {
		h.update(press("2"))
		for _, l := range strings.Split(h.screen(), "\n") {
			if strings.HasPrefix(l, "stalls ") {
				return l
			}
		}
		t.Fatalf("no stalls row:\n%s", h.screen())
		return ""
	}
	if runs := h.m.TargetRuns(); len(runs[0]) != 1 || len(runs[1]) != 2 {
		t.Fatalf("runs per target %v, want [1 2]", lens(runs))
	}
	if l := stallsRow(); !strings.Contains(l, "4") || strings.Contains(l, "!") {
		t.Errorf("B a run ahead: its stalls are marked worse (or not counted): %q", l)
	}
	h.push(obsA, evs[4:]...)
	h.advance(100 * time.Millisecond)
	if runs := h.m.TargetRuns(); len(runs[0]) != 2 {
		t.Fatalf("runs per target %v, want [2 2]", lens(runs))
	}
	if l := stallsRow(); strings.Contains(l, "!") {
		t.Errorf("even runs, the same stalls: marked worse: %q", l)
	}
}
