package tui

import (
	"fmt"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// TestRunTTFTCountsInFlight: the TTFT panel says how many streams are in
// flight and how many of them have no first token yet, on the streams
// page and whole on the distributions page; the scatter page draws the
// finished streams and counts those in flight while there are any.
func TestRunTTFTCountsInFlight(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	done := rh.stream("mid-sentence-stall", 0, "p")
	rh.play(done, 0, -1)
	rh.sink(done)
	streaming := rh.stream("steady", 1, "p")
	rh.play(streaming, 0, -1)
	waiting := rh.stream("steady", 2, "p")
	rh.play(waiting, 0, 2) // start and headers only
	rh.advance(frameInterval * 2)
	wantAll(t, [2]int{120, 40}, rh.screen(), "ttft ms  n=1 · 2 in flight · 1 waiting", "p50 180 ms p99 180 ms n=1")
	rh.update(press("2"))
	wantAll(t, [2]int{120, 40}, rh.screen(), "p50 180 ms · p99 180 ms · n=1 finished · 2 in flight, 1 without a first token yet")
	rh.update(press("3"))
	s := rh.screen()
	wantAll(t, [2]int{120, 40}, s, "stall 250 ms", "•", "2 in flight not yet drawn", "? help")
	checkFits(t, s, 120, 40)
	// With none in flight the title says nothing of them: a finished run
	// read "0 in flight not yet drawn".
	rh.sink(streaming)
	rh.sink(waiting)
	rh.advance(frameInterval * 2)
	if s := rh.screen(); strings.Contains(s, "in flight not yet drawn") {
		t.Errorf("with no stream in flight the scatter still counts them:\n%s", s)
	}
}

// TestRunHistogramsSayTheyHoldFinishedStreams: while the streams in flight
// have a first token and gaps but none has finished, the histograms (of
// finished streams) say so instead of "no first token yet" beside rows
// with a ttft; after a stream that failed with no content they say that.
func TestRunHistogramsSayTheyHoldFinishedStreams(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for i := range 2 {
		rh.play(rh.stream("steady", i, "short"), 0, 12)
	}
	rh.advance(frameInterval)
	s := rh.screen()
	if n := strings.Count(s, "no measured stream has finished yet"); n != 2 || strings.Contains(s, "no first token yet") {
		t.Errorf("2 streams in flight with a first token, none finished: %d histograms say none finished, want 2:\n%s", n, s)
	}
	failed := rh.stream("rate-limited", 2, "short")
	rh.play(failed, 0, -1)
	rh.sink(failed)
	rh.m.rs.progress.Finished.Store(1)
	rh.advance(frameInterval)
	s = rh.screen()
	for _, want := range []string{"no finished stream had a first token", "no finished stream had two content frames"} {
		if !strings.Contains(s, want) {
			t.Errorf("after a failed stream, the screen lacks %q:\n%s", want, s)
		}
	}
}

// TestRunScreenSaysWhatItLeavesOut: at 80×24 with 12 finished streams
// the heatmap has room for a few and says how many of the 12 it shows
// (it drew 2 rows unsaid); once the run is done the help's q says quit,
// not "stop and quit".
func TestRunScreenSaysWhatItLeavesOut(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	for i := range 12 {
		r := rh.stream("steady", i, "short")
		rh.play(r, 0, -1)
		rh.sink(r)
	}
	rh.m.rs.progress.Finished.Store(12)
	rh.m.rs.end(stats.RunStats{}, false, rh.m.sh.now)
	rh.advance(frameInterval)
	s := rh.screen()
	rows := rh.m.rs.lay.heat.b.h - 2
	if rows <= 0 || rows >= 12 {
		t.Fatalf("the heatmap has %d rows at 80x24; the test wants fewer than 12:\n%s", rows, s)
	}
	if want := fmt.Sprintf("heatmap  %d of 12", rows); !strings.Contains(s, want) {
		t.Errorf("the heatmap's title lacks %q:\n%s", want, s)
	}
	if !strings.Contains(s, "q quit") || strings.Contains(s, "stop and quit") {
		t.Errorf("the finished run's help does not say 'q quit':\n%s", s)
	}
}

// TestRunTableCountsWarmup: the streams table lists warmup streams, and
// its title's "85 finished" sat under "80/80 recorded" unexplained; it
// says how many of them were warmup.
func TestRunTableCountsWarmup(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for i := range 3 {
		r := rh.stream("steady", i, "p")
		if i < 2 {
			r.Phase = record.PhaseWarmup
		}
		rh.play(r, 0, -1)
		rh.sink(r)
	}
	rh.m.rs.progress.Warmup.Store(2)
	rh.m.rs.progress.Finished.Store(1)
	rh.advance(frameInterval)
	wantAll(t, [2]int{120, 40}, rh.screen(), "0 in flight · 3 finished (2 warmup)")
}
