package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/stats"
)

// Legends in a narrow panel keep whole entries: the timeline's glyphs
// that fit, the heatmap's shades with a shorter note or none (at 80
// columns they were cut mid-word: "■ e", "stall ≥250m…").
func TestLegendsKeepWholeEntries(t *testing.T) {
	st := NewStyles(false, true)
	words := []string{"text", "reasoning", "tool", "one read", "role", "ping", "usage", "end", "error", "stall"}
	for _, w := range []int{20, 68, 120} {
		got := ansi.Strip(TimelineLegend(w, &st))
		if ansi.StringWidth(got) > w {
			t.Errorf("timeline legend at %d is %d wide: %q", w, ansi.StringWidth(got), got)
		}
		entries := strings.Split(got, "  ")
		for i, e := range entries {
			if i >= len(words) || !strings.HasSuffix(e, " "+words[i]) {
				t.Errorf("timeline legend at %d: entry %d is %q, want a whole %q: %q", w, i, e, words[min(i, len(words)-1)], got)
			}
		}
		if w == 120 && len(entries) != len(words) {
			t.Errorf("timeline legend at 120 has %d of %d entries: %q", len(entries), len(words), got)
		}
	}
	for _, tc := range []struct {
		width   int
		byTime  bool
		per     int
		want    string
		without string
	}{
		{120, false, 2, "█ stall ≥250 ms · columns: frame index, 2 per cell", ""},
		{60, false, 2, "█ stall ≥250 ms · 2 frames/cell", "columns"},
		{60, true, 2, "█ stall ≥250 ms · time 0–2.49 s", "columns"},
		{40, false, 2, "█ stall ≥250 ms", "·"},
		{60, false, 1, "█ stall ≥250 ms · 1 frame/cell", "frames"},
	} {
		got := ansi.Strip(heatLegend(stats.HeatShadeEdges(250), tc.byTime, tc.per, 2490, tc.width, &st))
		if ansi.StringWidth(got) > tc.width || !strings.HasSuffix(got, tc.want) || (tc.without != "" && strings.Contains(got, tc.without)) {
			t.Errorf("heat legend at %d (by time %v): %q, want it to end %q within the width", tc.width, tc.byTime, got, tc.want)
		}
	}
}
