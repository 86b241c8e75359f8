package tui

import (
	"strings"
	"testing"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/internal/hops"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
)

// drip view --relay: the hops panel takes the clocks' place and the text
// marks each stall with its owner, at 80×24 and 120×40; where the clocks
// went for room, the hops panel's title says so.
func TestViewBesideARelayShowsOwners(t *testing.T) {
	c, r := recordtest.Hops(t)
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: []*record.Record{c}}, []hops.File{{Name: "relay.jsonl", Records: []*record.Record{r}}})
	if err != nil {
		t.Fatal(err)
	}
	h := newHarness(t, Config{Records: []*record.Record{c}, Relay: map[*record.Record]*hops.Stream{c: rep.For(c)}})
	for _, size := range [][2]int{{80, 24}, {120, 40}} {
		h.update(tea.WindowSizeMsg{Width: size[0], Height: size[1]})
		s := h.screen()
		checkFits(t, s, size[0], size[1])
		s = strings.ReplaceAll(s, "\u00a0", " ") // the text keeps a marker on one line
		for _, want := range []string{" hops  ", "182ms = 180ms upstream + 2ms", "⏸ 580ms path not.", "⏸ 700ms upstream sentence"} {
			if !strings.Contains(s, want) {
				t.Errorf("%v: the screen lacks %q:\n%s", size, want, s)
			}
		}
	}
}
