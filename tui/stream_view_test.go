package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// TestClocksRowsAllShowAtEverySize: drip view of 7 runs (the timeline
// taking its most rows) shows every clocks row, the last (2nd token)
// included, at each size the screen lays out the clocks beside the text
// — at 120×40 the panel was given 13 rows for its 15.
func TestClocksRowsAllShowAtEverySize(t *testing.T) {
	recs := make([]*record.Record, 7)
	for i := range recs {
		recs[i] = recorded(t, "mid-sentence-stall")
		recs[i].Seq = i
	}
	h := newHarness(t, Config{Records: recs})
	for _, sz := range [][2]int{{120, 40}, {200, 50}, {80, 24}, {120, 30}} {
		h.update(tea.WindowSizeMsg{Width: sz[0], Height: sz[1]})
		s := h.screen()
		checkFits(t, s, sz[0], sz[1])
		for _, m := range stats.Registry {
			if m.ClockLabel == "" || m.Key == "ttfo" || m.Key == "held" {
				continue // shown only when they differ from ttft / the server reports one
			}
			if !strings.Contains(s, m.ClockLabel+" ") {
				t.Errorf("%dx%d: the clocks row %q is cut:\n%s", sz[0], sz[1], m.ClockLabel, s)
			}
		}
	}
}

// TestSavedRecordsOfferNoFreeze: drip view's records never move, so its
// help has no "freeze drawing" and space does not claim "measuring
// continues"; the live view keeps the key.
func TestSavedRecordsOfferNoFreeze(t *testing.T) {
	saved := newHarness(t, Config{Records: []*record.Record{recorded(t, "steady")}})
	saved.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	saved.update(press("space"))
	if s := saved.screen(); strings.Contains(s, "freeze drawing") || strings.Contains(s, "drawing frozen") {
		t.Errorf("saved records offer to freeze the drawing:\n%s", s)
	}
	live := newHarness(t, Config{})
	live.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	live.update(live.m.Init())
	live.push(<-live.observers, events(recorded(t, "steady"))[:6]...)
	live.update(press("space"))
	if s := live.screen(); !strings.Contains(s, "freeze drawing") || !strings.Contains(s, "drawing frozen (measuring continues)") {
		t.Errorf("the live view lacks its freeze key:\n%s", s)
	}
}
