package views

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// TestWidth: the fast measure agrees with ansi.StringWidth on plain and
// styled ASCII, wide and combining characters, and broken escapes.
func TestWidth(t *testing.T) {
	st := NewStyles(true, true)
	for _, s := range []string{
		"", "plain ascii", st.Value.Render("styled") + " and " + st.StallMid.Render("⏸ 700ms"),
		"日本語 text", "e\u0301 combining", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b[", "tab\there", "emoji 👍🏽",
	} {
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("Width(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
	}
}

func FuzzWidth(f *testing.F) {
	f.Add("plain")
	f.Add("\x1b[1mbold\x1b[m")
	f.Fuzz(func(t *testing.T, s string) {
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("Width(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
	})
}
