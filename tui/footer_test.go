package tui

import (
	"image/color"
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"
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

// TestHelpBarFollowsStylesAndKeys: the stream screen's help bar, kept
// between redraws, is drawn again when the palette changes (a light
// terminal) and when a key changes what it says (space).
func TestHelpBarFollowsStylesAndKeys(t *testing.T) {
	t.Parallel()
	h, _ := startStream(t, Config{Color: true}, 120, 40)
	s := h.m.stream
	fresh := func() string { return helpBar(&s.help, s.keys, s.keys.Help, s.keys.Quit, 120) }
	last := func() string {
		lines := strings.Split(h.m.View().Content, "\n")
		return strings.TrimRight(lines[len(lines)-1], " ")
	}
	dark := last()
	if want := fresh(); !strings.HasPrefix(dark, want) {
		t.Fatalf("the help bar is not the one helpBar draws:\n%q\nwant\n%q", dark, want)
	}
	h.update(tea.BackgroundColorMsg{Color: color.White})
	if got := last(); got == dark || !strings.HasPrefix(got, fresh()) {
		t.Errorf("on a light terminal the help bar kept its dark styles:\n%q", got)
	}
	h.update(press("space"))
	if got := ansi.Strip(last()); !strings.Contains(got, "space resume drawing") {
		t.Errorf("after space the help bar says %q", got)
	}
}
