package views

import (
	"slices"
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

// TestWrapWordsKeepsSignsWithNumbers: the sweep's knee line wrapped as
// "-⏎0.0%" (ansi.Wrap breaks after a hyphen); rows break at spaces only,
// styled text is measured without its escapes, and a word wider than a
// row is cut into rows of its own.
func TestWrapWordsKeepsSignsWithNumbers(t *testing.T) {
	st := NewStyles(true, true)
	for _, tc := range []struct {
		s     string
		width int
		want  []string
	}{
		{"throughput gained -0.0% past 8", 18, []string{"throughput gained", "-0.0% past 8"}},
		{"knee at 4: ttft p95 +120.5% over level 2", 20, []string{"knee at 4: ttft p95", "+120.5% over level 2"}},
		{"a\u00a0⏸ 700ms held", 9, []string{"a\u00a0⏸ 700ms", "held"}},
		{"abcdefghij xy", 4, []string{"abcd", "efgh", "ij", "xy"}},
	} {
		got := wrapWords(tc.s, tc.width)
		if !slices.Equal(got, tc.want) {
			t.Errorf("wrapWords(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}
	styled := st.Value.Render("gain") + " " + st.Failed.Render("-0.0%")
	if got := wrapWords(styled, 10); len(got) != 1 {
		t.Errorf("styled %q at 10 columns: %d rows %q, want 1 (escapes take no room)", styled, len(got), got)
	}
}
