package tui

import (
	"context"
	"strings"
	"testing"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/record"
)

// TestLiveCompareFillsIn: the compare screen of runs being measured shows
// what has ended so far, refreshed on its tick, and says when they are done.
func TestLiveCompareFillsIn(t *testing.T) {
	feed := NewCompareFeed([]string{"steady", "stall"})
	h := &harness{t: t, now: time.Unix(1000, 0)}
	h.m = NewLiveCompare(context.Background(), feed, Config{Clock: func() time.Time { return h.now }})
	h.m.after = func(d time.Duration, msg tea.Msg) tea.Cmd {
		h.sched = append(h.sched, scheduled{h.now.Add(d), msg})
		return nil
	}
	h.m.Init()
	h.update(tea.WindowSizeMsg{Width: 80, Height: 24})
	wantAll(t, [2]int{80, 24}, h.screen(), "measuring", "? help", "q quit")
	feed.Add(0, recorded(t, "steady"))
	feed.Add(1, recorded(t, "mid-sentence-stall"))
	h.advance(liveCompareInterval)
	wantAll(t, [2]int{80, 24}, h.screen(), "streams so far: A 1 · B 1", "A steady", "B stall")
	for _, r := range []*record.Record{recorded(t, "steady"), recorded(t, "steady")} {
		feed.Add(0, r)
	}
	// While measuring, A ahead of B is progress, not a workload difference.
	h.advance(liveCompareInterval)
	if s := h.screen(); strings.Contains(s, "measured streams") {
		t.Errorf("measuring A 3 · B 1: the banner warns of the measured streams:\n%s", s)
	}
	feed.Close()
	h.advance(liveCompareInterval)
	s := h.screen()
	wantAll(t, [2]int{80, 24}, s, "done · streams: A 3 · B 1", "measured streams: A 3 · B 1")
	checkFits(t, s, 80, 24)
	if n := len(h.sched); n != 0 && h.sched[n-1].at.After(h.now) {
		if _, ok := h.sched[n-1].msg.(liveCompareTickMsg); ok {
			t.Error("the screen still ticks after the runs are done")
		}
	}
}
