package tui

import (
	"context"
	"reflect"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// runHarness is the harness on the run screen, with no runner: the test
// plays the runner, through the same observer and sink the runner gets.
type runHarness struct {
	*harness
	observe func(probe.Event)
	sink    func(*record.Record)
	sunk    []*record.Record // what the sink passed on (the headless side)
	evs     map[*record.Record][]probe.Event
}

var runWorkload = stats.Workload{Target: "http://fixture/v1/chat/completions", Format: "openai-chat", Runs: 40, Concurrency: 4}

func newRunHarness(t testing.TB) *runHarness {
	h := &harness{t: t, now: time.Unix(1000, 0)}
	rh := &runHarness{harness: h, evs: map[*record.Record][]probe.Event{}}
	plan := probe.Plan{
		Target: probe.Target{URL: runWorkload.Target, Format: adapters.Lookup("openai-chat")},
		Runs:   40, Concurrency: 4, Options: probe.Options{StallMS: stats.DefaultStall},
	}
	h.m = NewRun(context.Background(), RunConfig{Plan: plan, Workload: runWorkload, Load: "closed loop, 4 in flight · 40 runs"},
		Config{Clock: func() time.Time { return h.now }, Sink: func(r *record.Record) { rh.sunk = append(rh.sunk, r) }})
	h.m.after = func(d time.Duration, msg tea.Msg) tea.Cmd {
		h.sched = append(h.sched, scheduled{h.now.Add(d), msg})
		return nil
	}
	rs := h.m.rs
	rs.startedAt = h.now
	rh.observe, rh.sink = rs.observer(h.m.sh.now), rs.sink(h.m.cfg.Sink, h.m.sh.now)
	h.m.rs.armTick()
	t.Cleanup(h.m.Wait)
	return rh
}

// stream is a recorded fixture stream as the runner would hand it over.
func (rh *runHarness) stream(scenario string, seq int, prompt string) *record.Record {
	r := recorded(rh.t, scenario)
	r.Seq, r.PromptID, r.Phase, r.RunOffsetMS = seq, prompt, record.PhaseMeasure, float64(seq)*100
	return r
}

// play pushes a stream's events from..to (to < 0: through its last frame),
// as the runner's observer sees them: every event tagged with the stream's
// seq, and no end event (the sink hands the record over).
func (rh *runHarness) play(r *record.Record, from, to int) {
	evs, ok := rh.evs[r]
	if !ok {
		evs = events(r)
		evs = evs[:len(evs)-1]
		for i := range evs {
			evs[i].Seq = r.Seq
		}
		rh.evs[r] = evs
	}
	if to < 0 || to > len(evs) {
		to = len(evs)
	}
	for _, e := range evs[min(from, to):to] {
		rh.observe(e)
	}
}

func runKey(k string) tea.KeyPressMsg {
	switch k {
	case "enter":
		return tea.KeyPressMsg{Code: tea.KeyEnter}
	case "esc":
		return tea.KeyPressMsg{Code: tea.KeyEscape}
	case "down":
		return tea.KeyPressMsg{Code: tea.KeyDown}
	case "end":
		return tea.KeyPressMsg{Code: tea.KeyEnd}
	case "home":
		return tea.KeyPressMsg{Code: tea.KeyHome}
	}
	return press(k)
}

// TestRunScreenManyStreams plays twelve interleaved streams, eight of them
// finished, and reads the screen: accounting, table, histograms, heatmap
// and timeline; the figures are the headless aggregate's, by construction.
func TestRunScreenManyStreams(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	scen := []string{"mid-sentence-stall", "steady", "in-stream-error", "mid-sentence-stall"}
	recs := make([]*record.Record, 12)
	for i := range recs {
		recs[i] = rh.stream(scen[i%4], i, []string{"short", "medium", "long"}[i%3])
		rh.play(recs[i], 0, 2) // start and headers, all twelve at once
	}
	for step := 2; step < 200; step += 5 { // frames of every stream, interleaved
		for _, r := range recs {
			rh.play(r, step, step+5)
		}
	}
	headless := stats.NewAggregate(stats.DefaultStall)
	for _, r := range recs[:8] {
		rh.sink(r)
		headless.Add(r)
	}
	pg := rh.m.rs.progress
	pg.Attempted.Store(12)
	pg.Admitted.Store(12)
	pg.InFlight.Store(4)
	pg.Finished.Store(8)
	rh.advance(frameInterval)
	s := rh.screen()
	want := headless.Summary(runWorkload)
	for _, w := range []string{
		"drip run · running", "8/40 recorded", "attempted 12", "in flight 4", "completed 6", "failed 2 (in_stream 2)",
		"ttft p50 " + textfmt.OptMS(want.Metrics["ttft_ms"].P50), "gap p50 " + textfmt.OptMS(want.Metrics["gap_ms"].P50),
		"#12", "streaming", "complete", "in_stream", "500 ms–1 s █", "heatmap", "█ stall ≥250 ms", "timeline  #12",
	} {
		if !strings.Contains(s, w) {
			t.Errorf("screen lacks %q", w)
		}
	}
	if t.Failed() {
		t.Log("\n" + s)
	}
	checkFits(t, s, 120, 40)
	if got := rh.m.RunSummary(); !reflect.DeepEqual(got, want) {
		t.Errorf("the screen's summary is not the headless one:\n%+v\n%+v", got.Streams, want.Streams)
	}
	if len(rh.sunk) != 8 {
		t.Errorf("the sink passed %d records on, want 8", len(rh.sunk))
	}

	// The rest end, then the run.
	for _, r := range recs[8:] {
		rh.play(r, 200, -1)
		rh.sink(r)
		headless.Add(r)
	}
	st := stats.RunStats{LagBoundMS: stats.ScheduleLagBoundMS}
	rh.m.rs.end(st, false, rh.m.sh.now)
	headless.SetRun(st)
	rh.advance(frameInterval)
	if !rh.m.RunFinished() || !strings.Contains(rh.screen(), "finished") || !strings.Contains(rh.screen(), "q quits and prints the summary") {
		t.Errorf("the end of the run is not shown:\n%s", rh.screen())
	}
	if got, want := rh.m.RunSummary(), headless.Summary(runWorkload); !reflect.DeepEqual(got, want) {
		t.Errorf("final summary differs from the headless one:\n%+v\n%+v", got.Streams, want.Streams)
	}
	n := len(rh.sched)
	rh.advance(time.Second)
	if len(rh.sched) > n {
		t.Error("the screen keeps ticking after the run ended")
	}
}

// TestRunScreenStale: events of another run, or of a stream the screen never
// saw start, are dropped and never drawn.
func TestRunScreenStale(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	r := rh.stream("steady", 0, "short")
	rh.play(r, 0, -1)
	other := rh.m.rs.feed.observer(rh.m.rs.id+1, rh.m.sh.now)
	for _, e := range events(rh.stream("mid-sentence-stall", 98, "ghost"))[:5] {
		other(e)
	}
	for _, e := range events(rh.stream("mid-sentence-stall", 99, "ghost"))[2:5] {
		e.Seq = 99
		rh.observe(e) // frames with no start
	}
	rh.advance(frameInterval)
	if rh.m.rs.dropped != 8 {
		t.Errorf("%d stale events dropped, want 8", rh.m.rs.dropped)
	}
	if s := rh.screen(); strings.Contains(s, "ghost") || strings.Contains(s, "#99") || strings.Contains(s, "#100") {
		t.Errorf("a stale stream is on screen:\n%s", s)
	}
	if n := len(rh.m.rs.list); n != 1 {
		t.Errorf("%d streams held, want 1", n)
	}
}

// TestRunScreenKeys drives selection, follow, heatmap mode, help, opening a
// running stream in the stream screen (it stays live, then ends), esc back,
// and quitting.
func TestRunScreenKeys(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	var recs []*record.Record
	for i := range 5 {
		recs = append(recs, rh.stream("mid-sentence-stall", i, "p"))
		rh.play(recs[i], 0, 12)
	}
	rh.advance(frameInterval)
	rs := rh.m.rs
	if rs.sel != 4 || !rs.follow {
		t.Fatalf("selection %d, follow %v: want the newest, followed", rs.sel, rs.follow)
	}
	rh.update(press("k"))
	rh.update(press("k"))
	if rs.sel != 2 || rs.follow {
		t.Errorf("up: selection %d, follow %v", rs.sel, rs.follow)
	}
	if !strings.Contains(rh.screen(), "timeline  #3") || !strings.Contains(rh.screen(), "end follows the newest") {
		t.Errorf("timeline not of the selected stream:\n%s", rh.screen())
	}
	rh.play(rh.stream("steady", 5, "p"), 0, 3)
	rh.advance(frameInterval)
	if rs.sel != 2 {
		t.Errorf("a new stream moved a held selection to %d", rs.sel)
	}
	rh.update(runKey("home"))
	if rs.sel != 0 {
		t.Errorf("home: selection %d", rs.sel)
	}
	rh.update(runKey("end"))
	if rs.sel != 5 || !rs.follow {
		t.Errorf("end: selection %d, follow %v", rs.sel, rs.follow)
	}
	rh.update(press("b"))
	if !strings.Contains(rh.screen(), "streams × time") {
		t.Error("b did not switch the heatmap to time")
	}
	rh.update(press("?"))
	if !strings.Contains(rh.screen(), "first stream") {
		t.Error("? did not show the full help")
	}
	rh.update(press("?"))

	// Open stream #2 while it runs: it stays live in the stream screen.
	rh.update(runKey("home"))
	rh.update(runKey("down"))
	rh.update(runKey("enter"))
	if rh.m.active != screen(rh.m.stream) || !strings.Contains(rh.screen(), "a stream of the run") || !strings.Contains(rh.screen(), "streaming") {
		t.Fatalf("enter did not open the stream:\n%s", rh.screen())
	}
	before := len(rh.m.stream.cur.Record.Frames)
	rh.play(recs[1], 12, 40)
	rh.advance(frameInterval)
	if len(rh.m.stream.cur.Record.Frames) <= before || !strings.Contains(rh.screen(), "Streaming feels") {
		t.Errorf("the open stream did not follow its frames (%d → %d)", before, len(rh.m.stream.cur.Record.Frames))
	}
	// Its first byte is the probe's, as on the stream screen of drip
	// watch: it said "first byte —" beside "first event 42.40 ms".
	if s := rh.screen(); !strings.Contains(s, "first byte     "+textfmt.MS(*recs[1].FirstByteMS)) {
		t.Errorf("the open stream's first byte (%v ms) is not in its clocks:\n%s", *recs[1].FirstByteMS, s)
	}
	rh.play(recs[1], 40, -1)
	rh.sink(recs[1])
	rh.advance(frameInterval)
	if s := rh.screen(); !strings.Contains(s, "done ") || !strings.Contains(s, "⏸ 700 ms") {
		t.Errorf("the open stream's end is not shown:\n%s", s)
	}
	rh.update(runKey("esc"))
	if rh.m.active != screen(rh.m.rs) || !strings.Contains(rh.screen(), "drip run") {
		t.Fatalf("esc did not come back:\n%s", rh.screen())
	}
	checkFits(t, rh.screen(), 120, 40)

	if cmd := rh.update(press("q")); cmd == nil || !reflect.DeepEqual(cmd(), tea.Quit()) {
		t.Error("q does not quit")
	}
	if rh.m.ctx.Err() == nil {
		t.Error("quitting did not stop the run")
	}
}

// TestRunScreenResize reflows the run screen at every size the issue names.
func TestRunScreenResize(t *testing.T) {
	rh := newRunHarness(t)
	for i := range 6 {
		r := rh.stream("mid-sentence-stall", i, "p")
		rh.play(r, 0, -1)
		if i < 4 {
			rh.sink(r)
		}
	}
	for _, sz := range [][2]int{{120, 40}, {80, 24}, {60, 20}, {250, 70}, {40, 10}, {20, 5}, {120, 40}} {
		rh.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		rh.advance(frameInterval)
		s := rh.screen()
		checkFits(t, s, sz[0], sz[1])
		want := []string{"drip run"}
		if sz[0] >= 60 && sz[1] >= 20 {
			want = append(want, "completed 4", "#6", "timeline")
		}
		if sz[0] >= 80 && sz[1] >= 24 {
			want = append(want, "heatmap", "gap ms", "500 ms–1 s █")
		}
		if sz[0] >= 120 && sz[1] >= 40 {
			want = append(want, "ttft ms")
		}
		for _, w := range want {
			if !strings.Contains(s, w) {
				t.Errorf("%dx%d: screen lacks %q:\n%s", sz[0], sz[1], w, s)
			}
		}
	}
}

// TestRunScreenRedrawCap: however many events arrive, the screen draws at
// most 30 times a second; with many streams in flight, 10 times, and the
// O(streams) panels at most every slowInterval.
func TestRunScreenRedrawCap(t *testing.T) {
	for _, tc := range []struct {
		streams, lo, hi, heavy int
	}{
		{8, 25, 31, 31},
		{busyStreams + 16, 8, 11, 5},
	} {
		rh := newRunHarness(t)
		rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
		var recs []*record.Record
		for i := range tc.streams {
			recs = append(recs, rh.stream("long", i, "p"))
			rh.play(recs[i], 0, 2)
		}
		rh.advance(frameInterval)
		redraws, heavy := rh.m.redraws, 0
		last := rh.m.rs.lastHeavy
		for step := range 1000 { // 1 s: every stream gets a read every millisecond
			for _, r := range recs {
				rh.play(r, 2+step, 3+step)
			}
			rh.advance(time.Millisecond)
			if rh.m.rs.lastHeavy != last {
				heavy++
				last = rh.m.rs.lastHeavy
			}
		}
		if n := rh.m.redraws - redraws; n > tc.hi || n < tc.lo {
			t.Errorf("%d streams: %d redraws in a second, want %d to %d", tc.streams, n, tc.lo, tc.hi)
		}
		if heavy > tc.heavy {
			t.Errorf("%d streams: the slow panels were redrawn %d times in a second, want at most %d", tc.streams, heavy, tc.heavy)
		}
	}
}

// TestRunScreenBounded: the screen keeps a bounded number of finished
// streams however long the run, while the figures count every one.
func TestRunScreenBounded(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for i := range 3000 {
		r := &record.Record{Seq: i, Phase: record.PhaseMeasure, Status: record.StatusFailed, Error: &record.Error{Class: record.ErrRefused}}
		rh.sink(r)
		if i%100 == 0 {
			rh.advance(frameInterval)
		}
	}
	rh.advance(frameInterval)
	if n := len(rh.m.rs.list); n > keepFinished+keepFinished/4 {
		t.Errorf("%d finished streams held, want at most %d", n, keepFinished+keepFinished/4)
	}
	if s := rh.screen(); !strings.Contains(s, "failed 3000 (refused 3000)") || !strings.Contains(s, "#3000") {
		t.Errorf("screen:\n%s", s)
	}
}
