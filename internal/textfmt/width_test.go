package textfmt

import (
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// styled is text as a screen styles it: SGR around it, measured as nothing.
func styled(s string) string { return "\x1b[1;38;2;121;192;255m" + s + "\x1b[m" }

// TestWidth: the fast measure agrees with ansi.StringWidth on plain and
// styled ASCII, wide and combining characters, and broken escapes.
func TestWidth(t *testing.T) {
	t.Parallel()
	for _, s := range []string{
		"", "plain ascii", styled("styled") + " and " + "\x1b[1;7m⏸ 700ms\x1b[m",
		"日本語 text", "e\u0301 combining", "\x1b]8;;http://x\x07link\x1b]8;;\x07", "\x1b[", "tab\there", "emoji 👍🏽",
	} {
		if got, want := Width(s), ansi.StringWidth(s); got != want {
			t.Errorf("Width(%q) = %d, ansi.StringWidth = %d", s, got, want)
		}
	}
}

// TestWidthOfSymbols: every rune Width measures itself is as wide as
// ansi.StringWidth says, alone, between ASCII and box drawing, styled,
// and before what joins it into one grapheme (a combining mark, an emoji
// presentation selector, a joiner).
func TestWidthOfSymbols(t *testing.T) {
	t.Parallel()
	for r := rune(0x80); r < 0x3000; r++ {
		c := string(r)
		for _, s := range []string{c, "a" + c + "│", styled(c) + "─", c + c, c + "\u0301", c + "\ufe0f", c + "\u200d" + c, "│" + c + "\u20e3"} {
			if got, want := Width(s), ansi.StringWidth(s); got != want {
				t.Fatalf("Width(%q) = %d, ansi.StringWidth = %d", s, got, want)
			}
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

// Cells are measured on screen: a wide rune takes two, — one.
func TestCells(t *testing.T) {
	t.Parallel()
	cases := []struct{ got, want string }{
		{PadLeft("漢", 4), "  漢"}, {PadLeft("—", 3), "  —"}, {PadLeft("12345", 3), "12345"},
		{PadRight("漢", 4), "漢  "}, {PadRight("12345", 3), "12345"},
		{FitLeft("漢字", 5), "漢字 "}, {FitLeft("漢字漢", 5), "漢字…"}, {FitLeft("ab", 0), ""},
		{FitRight("漢", 3), " 漢"}, {FitRight("abcdef", 4), "abc…"},
		{Fit("abcdef\nx\ny", 4, 2), "abc…\nx   "}, {Fit("a", 2, 2), "a \n  "}, {Fit("a", 0, 2), ""},
		{FitParts("run 1 · done · ttft 12", 14), "run 1 · done"}, {FitParts("abcdefgh", 5), "abcd…"},
		{CutWords("Please try again later", 14), "Please try…"}, {CutWords("Pleasetryagain", 8), "Pleaset…"},
		{Beside("ab\nc", "X\nY\nZ", 3, 2), "ab X\nc  Y"}, {Beside("abcd", "X", 2, 1), "abcdX"},
	}
	for _, c := range cases {
		if c.got != c.want {
			t.Errorf("got %q, want %q", c.got, c.want)
		}
	}
}

// CutBytes keeps to the byte limit on a rune boundary: "é" is 2 bytes, so
// a limit inside it cuts before it.
func TestCutBytes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"abé", 3, "ab…"},
		{"abé", 4, "abé"},
		{"é", 0, "…"},
	} {
		if got := CutBytes(tc.s, tc.n); got != tc.want {
			t.Errorf("CutBytes(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
