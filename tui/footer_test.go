package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
)

// TestFootersKeepHelpAndQuit checks every screen's footer at 80×24 and
// narrower: "? help" and "q quit" are always on its last line, whatever
// other keys had to be cut for them.
func TestFootersKeepHelpAndQuit(t *testing.T) {
	screens := map[string]func(w, h int) string{
		"stream": func(w, h int) string {
			hs := newHarness(t, Config{})
			hs.update(tea.WindowSizeMsg{Width: w, Height: h})
			return hs.screen()
		},
		"compare": func(w, h int) string {
			return screenOf(compareModel(t, w, h, "steady.jsonl", "stall.jsonl"))
		},
		"run": func(w, h int) string {
			rh := newRunHarness(t)
			rh.update(tea.WindowSizeMsg{Width: w, Height: h})
			return rh.screen()
		},
		"targets": func(w, h int) string {
			th, _ := newTargetsHarness(t, false, "a", "b")
			th.update(tea.WindowSizeMsg{Width: w, Height: h})
			return th.screen()
		},
	}
	for name, draw := range screens {
		for _, w := range []int{40, 60, 80} {
			lines := strings.Split(draw(w, 24), "\n")
			last := lines[len(lines)-1]
			if !strings.Contains(last, "? help") || !strings.Contains(last, "• q ") {
				t.Errorf("%s at %d×24: footer %q lacks ? help or q quit", name, w, last)
			}
		}
	}
}
