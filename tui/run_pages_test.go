package tui

import (
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestRunTTFTCountsInFlight: the TTFT panel says how many streams are in
// flight and how many of them have no first token yet, on the streams
// page and whole on the distributions page; the scatter page draws the
// finished streams.
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
	wantAll(t, [2]int{120, 40}, rh.screen(), "n=1 · 2 in flight · 1 waiting")
	rh.update(press("2"))
	wantAll(t, [2]int{120, 40}, rh.screen(), "n=1 finished · 2 in flight, 1 without a first token yet")
	rh.update(press("3"))
	s := rh.screen()
	wantAll(t, [2]int{120, 40}, s, "stall 250ms", "•", "2 in flight not yet drawn", "? help")
	checkFits(t, s, 120, 40)
}
