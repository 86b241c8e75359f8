package tui

import (
	"context"
	"os"
	"reflect"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// scheduled is a message the model asked to receive at a time.
type scheduled struct {
	at  time.Time
	msg tea.Msg
}

// harness drives the root model through Update on a synthetic clock: the
// model's ticks are collected instead of slept on, and streams are sources
// whose observers the test calls itself.
type harness struct {
	t         testing.TB
	m         *Model
	now       time.Time
	sched     []scheduled
	observers chan func(probe.Event)
}

func newHarness(t testing.TB, cfg Config) *harness {
	h := &harness{t: t, now: time.Unix(1000, 0), observers: make(chan func(probe.Event), 16)}
	cfg.Clock = func() time.Time { return h.now }
	if cfg.Records == nil && cfg.Sources == nil {
		cfg.Sources = []Source{h.source("a"), h.source("b")}
	}
	h.m = New(context.Background(), cfg)
	h.m.after = func(d time.Duration, msg tea.Msg) tea.Cmd {
		h.sched = append(h.sched, scheduled{h.now.Add(d), msg})
		return nil
	}
	t.Cleanup(h.m.Wait)
	return h
}

// startStream opens the stream screen at w×h and starts its first
// stream: the harness, and the observer the test feeds that stream with.
func startStream(t testing.TB, cfg Config, w, ht int) (*harness, func(probe.Event)) {
	h := newHarness(t, cfg)
	h.update(tea.WindowSizeMsg{Width: w, Height: ht})
	h.update(h.m.Init())
	return h, <-h.observers
}

// source is a stream the test plays: it hands its observer over and
// blocks until canceled.
func (h *harness) source(name string) Source {
	return Source{Name: name, Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
		h.observers <- observe
		<-ctx.Done()
		return &record.Record{Seq: seq, Status: record.StatusCanceled}
	}}
}

// update delivers a message and, as Bubble Tea does, asks for the view.
func (h *harness) update(msg tea.Msg) tea.Cmd {
	_, cmd := h.m.Update(msg)
	h.m.View()
	return cmd
}

// advance moves the clock, delivering every tick that falls due.
func (h *harness) advance(d time.Duration) {
	end := h.now.Add(d)
	for {
		i := -1
		for j, s := range h.sched {
			if !s.at.After(end) && (i < 0 || s.at.Before(h.sched[i].at)) {
				i = j
			}
		}
		if i < 0 {
			break
		}
		s := h.sched[i]
		h.sched = append(h.sched[:i], h.sched[i+1:]...)
		if s.at.After(h.now) {
			h.now = s.at
		}
		h.update(s.msg)
	}
	h.now = end
}

// push hands events to the model the way the probe does, then notifies it.
func (h *harness) push(observe func(probe.Event), evs ...probe.Event) {
	for _, e := range evs {
		observe(e)
	}
	h.update(feedMsg{})
}

// screen is what the terminal shows, without styles (and with the text's
// no-break spaces as spaces).
func (h *harness) screen() string {
	return strings.ReplaceAll(ansi.Strip(h.m.View().Content), "\u00a0", " ")
}

func press(k string) tea.KeyPressMsg {
	switch k {
	case "space":
		return tea.KeyPressMsg{Code: tea.KeySpace, Text: " "}
	case "tab":
		return tea.KeyPressMsg{Code: tea.KeyTab}
	case "pgup":
		return tea.KeyPressMsg{Code: tea.KeyPgUp}
	case "up":
		return tea.KeyPressMsg{Code: tea.KeyUp}
	}
	return tea.KeyPressMsg{Code: rune(k[0]), Text: k}
}

// recorded is a fixture scenario recorded with the fixture's own times.
func recorded(t testing.TB, scenario string) *record.Record {
	t.Helper()
	return recordtest.Scenario(t, scenario, &record.Record{V: record.RecordVersion, Target: "http://fixture/v1/chat/completions", HeadersMS: new(1.5)})
}

// events are the probe events of a record: start, headers, one per read,
// done.
func events(rec *record.Record) []probe.Event {
	head := &record.Record{Seq: rec.Seq, Target: rec.Target, Format: rec.Format, Model: rec.Model, HeadersMS: rec.HeadersMS}
	evs := []probe.Event{{Type: probe.EventStart, Record: head}, {Type: probe.EventHeaders, Record: head}}
	for i := 0; i < len(rec.Frames); {
		j := i
		for j < len(rec.Frames) && rec.Frames[j].Read == rec.Frames[i].Read {
			j++
		}
		// As the probe does: this read's frames, and the record so far.
		sofar := &record.Record{Seq: rec.Seq, Frames: rec.Frames[:j:j], FirstByteMS: rec.FirstByteMS}
		evs = append(evs, probe.Event{Type: probe.EventFrames, Frames: rec.Frames[i:j:j], Record: sofar})
		i = j
	}
	return append(evs, probe.Event{Type: probe.EventDone, Record: rec})
}

func checkFits(t *testing.T, screen string, w, h int) {
	t.Helper()
	lines := strings.Split(screen, "\n")
	if len(lines) != h {
		t.Errorf("%dx%d: screen has %d lines", w, h, len(lines))
	}
	for i, l := range lines {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("%dx%d: line %d is %d wide: %q", w, h, i, lw, l)
		}
	}
}

// TestModelStream plays a recorded stream through Update and reads the
// screen: status through waiting for headers → waiting for first token →
// streaming → done (not "connecting": behind a buffering proxy the
// connection is up while the response is held), the stall on the
// timeline, in the text, in the clocks, the histogram and heatmap.
func TestModelStream(t *testing.T) {
	h, observe := startStream(t, Config{}, 120, 40)
	rec := recorded(t, "mid-sentence-stall")
	evs := events(rec)

	h.push(observe, evs[0])
	h.advance(frameInterval)
	if s := h.screen(); !strings.Contains(s, "waiting for headers") {
		t.Fatalf("no waiting for headers status:\n%s", s)
	}
	h.push(observe, evs[1])
	h.advance(300 * time.Millisecond)
	if s := h.screen(); !strings.Contains(s, "waiting for first token") {
		t.Fatalf("no waiting status:\n%s", s)
	}
	h.push(observe, evs[2:5]...)
	h.advance(frameInterval)
	if s := h.screen(); !strings.Contains(s, "streaming") || !strings.Contains(s, "Streaming feels") {
		t.Fatalf("not streaming:\n%s", s)
	}
	h.push(observe, evs[5:]...)
	h.advance(frameInterval)
	s := h.screen()
	for _, want := range []string{
		"done ", "━⏸ 700 ms━", "middle of a ⏸ 700 ms", "stalls         2 (1 mid-sentence)",
		"500 ms–1 s ", "█ stall ≥250 ms", "▲ttft 180 ms",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("screen lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log("\n" + s)
	}
	checkFits(t, s, 120, 40)
}

// TestLiveEqualsSaved: the figures the model derives while a stream plays
// are those it derives from the saved record (drip view), by construction.
func TestLiveEqualsSaved(t *testing.T) {
	rec := recorded(t, "mid-sentence-stall")
	live := newHarness(t, Config{})
	live.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	live.update(live.m.Init())
	live.push(<-live.observers, events(rec)...)
	live.advance(frameInterval)

	saved := newHarness(t, Config{Records: []*record.Record{rec}})
	saved.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if !reflect.DeepEqual(live.m.stream.this, saved.m.stream.this) {
		t.Errorf("live summary %+v\nsaved summary %+v", live.m.stream.this.Metrics, saved.m.stream.this.Metrics)
	}
	if a, b := live.m.stream.lay.clocks.view, saved.m.stream.lay.clocks.view; a != b {
		t.Errorf("clocks differ:\n%s\n%s", a, b)
	}
}

// TestStaleRunDropped: after a re-run, events of the earlier run are
// dropped, and finished runs stay as earlier rows on the same axis.
func TestStaleRunDropped(t *testing.T) {
	h := newHarness(t, Config{})
	h.update(tea.WindowSizeMsg{Width: 250, Height: 70})
	h.update(h.m.Init())
	first := <-h.observers
	rec := recorded(t, "mid-sentence-stall")
	h.push(first, events(rec)...)
	h.advance(frameInterval)

	h.update(press("r"))
	second := <-h.observers
	// The first run's observer keeps talking: a late event of a stream
	// that was replaced.
	h.push(first, events(recorded(t, "steady"))...)
	h.advance(frameInterval)
	if h.m.stream.dropped == 0 {
		t.Fatal("stale events were not dropped")
	}
	if s := h.screen(); strings.Contains(s, "A stream that feels fast") {
		t.Fatalf("stale text shown:\n%s", s)
	}
	rec2 := recorded(t, "mid-sentence-stall")
	rec2.Seq = 1
	h.push(second, events(rec2)...)
	h.advance(frameInterval)
	s := h.screen()
	if !strings.Contains(s, "#1   ╌") || !strings.Contains(s, "#2   ╌") {
		t.Errorf("timeline lacks rows for both runs:\n%s", s)
	}
	if !strings.Contains(s, "all 2 runs") {
		t.Errorf("clocks lack the all-runs column:\n%s", s)
	}
}

// TestResize reflows the screen at every size the issue names.
func TestResize(t *testing.T) {
	h := newHarness(t, Config{})
	h.update(h.m.Init()) // before the first size, as Bubble Tea does
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.advance(beginDelay)
	h.push(<-h.observers, events(recorded(t, "mid-sentence-stall"))...)
	for _, sz := range [][2]int{{120, 40}, {80, 24}, {60, 20}, {250, 70}, {40, 10}, {120, 40}} {
		h.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		h.advance(frameInterval)
		s := h.screen()
		checkFits(t, s, sz[0], sz[1])
		if sz[0] >= 80 && !strings.Contains(s, "⏸ 700 ms") {
			t.Errorf("%dx%d: the stall is not on screen:\n%s", sz[0], sz[1], s)
		}
	}
}

// TestKeys drives every key of the help bar.
func TestKeys(t *testing.T) {
	h, observe := startStream(t, Config{SaveDir: t.TempDir()}, 120, 40)
	evs := events(recorded(t, "mid-sentence-stall"))
	h.push(observe, evs[:6]...)
	h.advance(frameInterval)

	// Freeze: measurement continues, drawing stops.
	h.update(press("space"))
	before := h.m.stream.lay.timeline.view
	h.push(observe, evs[6:]...)
	h.advance(frameInterval)
	if h.m.stream.lay.timeline.view != before || !strings.Contains(h.screen(), "drawing frozen") {
		t.Error("frozen view was redrawn")
	}
	// The help says what space does now.
	if s := h.screen(); !strings.Contains(s, "space resume drawing") || strings.Contains(s, "freeze drawing") {
		t.Errorf("frozen, the footer does not offer to resume:\n%s", s)
	}
	if h.m.stream.cur.Phase != 4 {
		t.Error("measurement did not continue while frozen")
	}
	h.update(press("space"))
	if h.m.stream.lay.timeline.view == before {
		t.Error("unfreezing did not redraw")
	}
	if s := h.screen(); !strings.Contains(s, "space freeze drawing") {
		t.Errorf("unfrozen, the footer does not offer to freeze:\n%s", s)
	}

	h.update(press("z"))
	if s := h.screen(); strings.Contains(s, "ttft 180 ms") || !strings.Contains(s, "━⏸ 300 ms━") {
		t.Errorf("zoomed timeline does not show the last seconds only:\n%s", s)
	}
	// Its title says so: the axis alone did not say the start is off it.
	if s := h.screen(); !strings.Contains(s, "zoomed: its last 2 s, z: all") {
		t.Errorf("the zoomed timeline does not say it is zoomed:\n%s", s)
	}
	h.update(press("z"))
	if s := h.screen(); strings.Contains(s, "zoomed") || !strings.Contains(s, "ttft 180 ms") {
		t.Errorf("z again does not show the whole stream:\n%s", s)
	}
	h.update(press("z"))
	h.update(press("b"))
	if s := h.screen(); !strings.Contains(s, "runs × time") || !strings.Contains(s, "time 0–") {
		t.Errorf("heatmap did not switch to time buckets:\n%s", s)
	}
	h.update(press("tab"))
	if h.m.stream.focus != focusHeatmap {
		t.Error("tab did not move the focus")
	}
	h.update(press("tab"))
	h.update(press("?"))
	if !strings.Contains(h.screen(), "follow the tail") {
		t.Error("full help not shown")
	}

	msg := h.update(press("s"))()
	h.update(msg)
	saved := msg.(savedMsg)
	if saved.err != nil || saved.n != 1 || !strings.Contains(h.screen(), "saved 1 record to "+saved.path) {
		t.Fatalf("save: %+v\n%s", saved, h.screen())
	}
	f, err := os.Open(saved.path)
	if err != nil {
		t.Fatal(err)
	}
	recs, _, err := record.ReadAll(f, stats.Rederive)
	f.Close()
	if err != nil || len(recs) != 1 {
		t.Fatalf("saved file: %v, %d records", err, len(recs))
	}

	h.update(press("n"))
	h.advance(frameInterval)
	if !strings.Contains(h.screen(), "scenario b") {
		t.Error("n did not switch the source")
	}
	<-h.observers
	if cmd := h.update(press("q")); cmd == nil || !reflect.DeepEqual(cmd(), tea.Quit()) {
		t.Error("q does not quit")
	}
	if h.m.ctx.Err() == nil {
		t.Error("quitting did not cancel the stream")
	}
}

// TestScroll: the text follows the tail until scrolled up, and again once
// scrolled back down.
func TestScroll(t *testing.T) {
	h, observe := startStream(t, Config{}, 80, 24)
	evs := events(recorded(t, "long"))
	h.push(observe, evs[:400]...)
	h.advance(frameInterval)
	if !h.m.stream.text.AtBottom() {
		t.Fatal("text does not follow the tail")
	}
	h.update(press("pgup"))
	h.push(observe, evs[400:800]...)
	h.advance(frameInterval)
	if h.m.stream.follow || h.m.stream.text.AtBottom() {
		t.Error("scrolled text jumped back to the tail")
	}
	h.update(press("G"))
	h.push(observe, evs[800:1200]...)
	h.advance(frameInterval)
	if !h.m.stream.follow || !h.m.stream.text.AtBottom() {
		t.Error("end did not resume following the tail")
	}
}

// TestRedrawCap: however many events and notifications arrive within one
// frame, the model schedules one tick and draws once.
func TestRedrawCap(t *testing.T) {
	h, observe := startStream(t, Config{}, 120, 40)
	evs := events(recorded(t, "long"))
	h.advance(time.Second)
	before, ticks := h.m.redraws, len(h.sched)
	for _, e := range evs[:200] {
		h.push(observe, e)
	}
	if len(h.sched)-ticks > 1 {
		t.Errorf("%d ticks scheduled for one frame", len(h.sched)-ticks)
	}
	h.advance(frameInterval)
	if n := h.m.redraws - before; n != 1 {
		t.Errorf("%d redraws in one frame interval, want 1", n)
	}
}

// The first stream starts once the terminal is set up and the first frame
// drawn: not in Init, not with the first window size, but beginDelay
// after it, so start-up work never shares the first stream's clock.
func TestFirstStreamWaitsForTheFirstFrame(t *testing.T) {
	h := newHarness(t, Config{})
	h.update(h.m.Init())
	if h.m.stream.seq != 0 {
		t.Fatalf("Init started %d streams before the terminal's size was known", h.m.stream.seq)
	}
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	h.advance(beginDelay - time.Millisecond)
	if h.m.stream.seq != 0 {
		t.Fatalf("%d streams started %v after the first window size, want none before %v", h.m.stream.seq, beginDelay-time.Millisecond, beginDelay)
	}
	h.advance(time.Millisecond)
	if h.m.stream.seq != 1 {
		t.Fatalf("%d streams started at %v after the first window size, want 1", h.m.stream.seq, beginDelay)
	}
	<-h.observers // the stream is running
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	h.advance(time.Second)
	if h.m.stream.seq != 1 {
		t.Errorf("a later resize started another stream: %d", h.m.stream.seq)
	}
}

// TestSavedWarmupStreamsMarked: drip view of a file with warmup streams
// marks their rows (timeline and heatmap) #nw and the header says what w
// means, while a measured row has none; a warmup stream shown as the
// current one keeps its own figures (the aggregate leaves warmup out, so
// "this run" read all — before).
func TestSavedWarmupStreamsMarked(t *testing.T) {
	recs := make([]*record.Record, 3)
	for i := range recs {
		recs[i] = recorded(t, "steady")
		recs[i].Seq = i
		recs[i].Phase = record.PhaseMeasure
	}
	recs[0].Phase, recs[1].Phase = record.PhaseWarmup, record.PhaseWarmup
	h := newHarness(t, Config{Records: recs})
	h.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	screen := h.screen()
	for _, label := range []string{"#1w", "#2w"} {
		if n := strings.Count(screen, label+" "); n != 3 {
			t.Errorf("%s on %d rows, want 3 (timeline, ttft and heatmap):\n%s", label, n, screen)
		}
	}
	if strings.Contains(screen, "#3w") || strings.Count(screen, "#3 ") != 3 {
		t.Errorf("measured #3 is not on 3 rows unmarked:\n%s", screen)
	}
	if want := "#nw: 2 warmup, left out of the all-runs figures"; !strings.Contains(screen, want) {
		t.Errorf("header lacks %q:\n%s", want, screen)
	}
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	if want := "#nw: 2 warmup, left out of the all-runs figures"; !strings.Contains(h.screen(), want) {
		t.Errorf("at 80 columns the header cuts %q:\n%s", want, h.screen())
	}

	warm := recorded(t, "steady")
	warm.Phase = record.PhaseWarmup
	only := newHarness(t, Config{Records: []*record.Record{warm}})
	only.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	if got := only.m.stream.this.Metrics["ttft_ms"]; got.N != 1 || got.P50 == nil || *got.P50 != *warm.TTFTMS {
		t.Errorf("a warmup stream's own ttft: n %d p50 %v, want n 1 p50 %v", got.N, deref(got.P50), *warm.TTFTMS)
	}
}

// deref prints a pointer's value, or nil.
func deref(p *float64) any {
	if p == nil {
		return nil
	}
	return *p
}

// TestLiveHeaderCountsWhatTheClocksShow: on a big live stream, whose
// derived figures are redrawn every slowInterval, the header's frame count
// is the one the clocks panel counts (gaps n + 1), never a redraw behind.
func TestLiveHeaderCountsWhatTheClocksShow(t *testing.T) {
	h, observe := startStream(t, Config{}, 120, 40)
	evs := events(recorded(t, "long"))
	header := regexp.MustCompile(`streaming [^·]+ · (\d+) frames`)
	gaps := regexp.MustCompile(`gaps +n (\d+)`)
	for i, step := 0, 300; i+step < len(evs)-1; i += step {
		h.push(observe, evs[i:i+step]...)
		h.advance(slowInterval / 2)
		s := h.screen()
		hm, gm := header.FindStringSubmatch(s), gaps.FindStringSubmatch(s)
		if hm == nil || gm == nil {
			t.Fatalf("after %d events: no frame count or no gaps n on the screen:\n%s", i+step, s)
		}
		frames, _ := strconv.Atoi(hm[1])
		n, _ := strconv.Atoi(gm[1])
		if frames != n+1 {
			t.Fatalf("after %d events (%d frames recorded): the header counts %d frames, the clocks %d gaps", i+step, len(h.m.stream.cur.Record.Frames), frames, n)
		}
	}
}

// TestClocksCountTheStallTheHeaderShows: while the header says "stalled
// ⏸ 280ms…" the clocks' stalls row counts that stall, said to be in
// progress (it said "stalls 0" until the stall ended), and among the
// mid-sentence ones when the text before it stops mid-sentence (it said
// "0 mid" until the stall ended), at 80 and 120 columns; once the next
// frame comes the stall is an ended one. The scenario's first stall is
// mid-sentence, its second between sentences.
func TestClocksCountTheStallTheHeaderShows(t *testing.T) {
	evs := events(recorded(t, "mid-sentence-stall"))
	stalls := stallEvents(evs)
	if len(stalls) != 2 {
		t.Fatalf("the scenario has %d stalls, want 2", len(stalls))
	}
	want := []struct{ during, after string }{
		{"1 (1 in progress, 1 mid)", "1 (1 mid-sentence)"},
		{"2 (1 in progress, 1 mid)", "2 (1 mid-sentence)"},
	}
	for _, w := range []int{80, 120} {
		h, observe := startStream(t, Config{}, w, 40)
		start, from := h.now, 0
		for i, st := range stalls {
			h.push(observe, evs[from:st.before]...)
			h.advance(start.Add(time.Duration((st.lastMS + 280) * float64(time.Millisecond))).Sub(h.now))
			s := h.screen()
			if !strings.Contains(s, "stalled ⏸") {
				t.Fatalf("%d columns, 280 ms into stall %d: the header does not say stalled:\n%s", w, i+1, s)
			}
			if got := stallsRow(s); got != want[i].during {
				t.Errorf("%d columns, stall %d in progress: stalls row %q, want %q:\n%s", w, i+1, got, want[i].during, s)
			}
			h.push(observe, evs[st.before])
			h.advance(frameInterval)
			if got := stallsRow(h.screen()); got != want[i].after {
				t.Errorf("%d columns, stall %d ended: stalls row %q, want %q", w, i+1, got, want[i].after)
			}
			from = st.before + 1
		}
	}
}

// stallsRow is the clocks' stalls figure on a screen, or "".
func stallsRow(screen string) string {
	m := regexp.MustCompile(`stalls +(\d.*\))`).FindStringSubmatch(screen)
	if m == nil {
		return ""
	}
	return m[1]
}

// stallEvent is where a recorded stream stalls: the index of the frames
// event that ends the stall, and the time of the last frame before it.
type stallEvent struct {
	before int
	lastMS float64
}

// stallEvents are the stalls of a recorded stream's events, in order.
func stallEvents(evs []probe.Event) []stallEvent {
	var out []stallEvent
	lastMS := 0.0
	for i, e := range evs {
		if e.Type != probe.EventFrames {
			continue
		}
		if at := e.Frames[0].TMS; lastMS > 0 && at-lastMS >= stats.DefaultStall {
			out = append(out, stallEvent{i, lastMS})
		}
		lastMS = e.Frames[len(e.Frames)-1].TMS
	}
	return out
}

// TestWarningLeadsTheHeader: the session's warning (-k's) is the first
// part of the stream screen's header, kept at 80 columns where the rest of
// the note (the demo's scenario, n's hint) is cut.
func TestWarningLeadsTheHeader(t *testing.T) {
	h, observe := startStream(t, Config{Warning: "TLS NOT VERIFIED (-k)"}, 80, 24)
	rec := recorded(t, "steady")
	h.push(observe, events(rec)...)
	h.advance(frameInterval)
	first, _, _ := strings.Cut(h.screen(), "\n")
	if !strings.Contains(first, "TLS NOT VERIFIED (-k)") {
		t.Fatalf("the header does not say the warning:\n%s", first)
	}
	h2, observe2 := startStream(t, Config{}, 80, 24)
	h2.push(observe2, events(rec)...)
	h2.advance(frameInterval)
	if strings.Contains(h2.screen(), "NOT VERIFIED") {
		t.Fatal("a session with no warning says one")
	}
}

// TestBigStreamFiguresBounded: on a live stream of 60,000 frames the
// derived figures are redrawn about every heavyEvery (2.4 s), not every
// slowInterval, while the timeline and header still move every frame;
// once the stream ends they are redrawn at once, the frames all counted.
func TestBigStreamFiguresBounded(t *testing.T) {
	t.Parallel()
	h, observe := startStream(t, Config{}, 120, 40)
	head := &record.Record{Target: "http://bench/v1/chat/completions", Format: "openai-chat"}
	observe(probe.Event{Type: probe.EventStart, Record: head})
	observe(probe.Event{Type: probe.EventHeaders, Record: head})
	for i := range 60000 {
		head.Frames = append(head.Frames, record.Frame{TMS: float64(i) / 10, Read: i, Bytes: 8, Kind: adapters.KindContent, Text: " w"})
	}
	h.push(observe, probe.Event{Type: probe.EventFrames, Frames: head.Frames, Record: head})
	h.advance(frameInterval)
	redraws, heavy, last := h.m.redraws, 0, h.m.stream.lastHeavy
	for range 90 { // 3 s of frame ticks, a frame each
		n := len(head.Frames)
		head.Frames = append(head.Frames, record.Frame{TMS: float64(n) / 10, Read: n, Bytes: 8, Kind: adapters.KindContent, Text: " w"})
		h.push(observe, probe.Event{Type: probe.EventFrames, Frames: head.Frames[n:], Record: head})
		h.advance(frameInterval)
		if h.m.stream.lastHeavy != last {
			heavy, last = heavy+1, h.m.stream.lastHeavy
		}
	}
	if n := h.m.redraws - redraws; n < 85 {
		t.Errorf("%d redraws in 3 s, want about 90", n)
	}
	if heavy != 1 {
		t.Errorf("the figures were redrawn %d times in 3 s of a 60,000-frame stream, want once (every %v)", heavy, heavyEvery(60000))
	}
	done := *head
	done.Status, done.DurationMS = record.StatusComplete, 6010
	if err := stats.Derive(&done, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	h.push(observe, probe.Event{Type: probe.EventDone, Record: &done})
	h.advance(frameInterval)
	if s := h.screen(); !strings.Contains(s, "gaps           n 60089") {
		t.Errorf("the finished stream's clocks do not count its 60,089 gaps:\n%s", s)
	}
}
