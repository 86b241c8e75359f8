package textfmt

import (
	"slices"
	"strings"
	"testing"
)

// TestWrapKeepsSignsWithNumbers: the sweep's knee line wrapped as
// "-⏎0.0%" (ansi.Wrap breaks after a hyphen); lines break at spaces only,
// styled text is measured without its escapes, and a word wider than a
// line is cut into lines of its own.
func TestWrapKeepsSignsWithNumbers(t *testing.T) {
	t.Parallel()
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
		got := Wrap(tc.s, tc.width)
		if !slices.Equal(got, tc.want) {
			t.Errorf("Wrap(%q, %d) = %q, want %q", tc.s, tc.width, got, tc.want)
		}
	}
	s := styled("gain") + " " + styled("-0.0%")
	if got := Wrap(s, 10); len(got) != 1 {
		t.Errorf("styled %q at 10 columns: %d lines %q, want 1 (escapes take no room)", s, len(got), got)
	}
}

// Lines leads the first line with first and the others with indent, both
// counted in the width; an item wider than its line stays whole.
func TestLinesLeadAndIndent(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		items         []string
		sep           string
		width         int
		first, indent string
		want          []string
	}{
		{[]string{"aa", "bb", "cc"}, " ", 8, "hint ", "  ", []string{"hint aa", "  bb cc"}},
		{[]string{"aa", "bbbbbbbbbb", "c"}, " · ", 6, "", "", []string{"aa", "bbbbbbbbbb", "c"}},
		{[]string{"a", "b", "c"}, " · ", 5, "", "", []string{"a · b", "c"}},
		{nil, " ", 8, "x: ", "  ", []string{"x: "}},
	} {
		if got := Lines(tc.items, tc.sep, tc.width, tc.first, tc.indent); !slices.Equal(got, tc.want) {
			t.Errorf("Lines(%q, %q, %d, %q, %q) = %q, want %q", tc.items, tc.sep, tc.width, tc.first, tc.indent, got, tc.want)
		}
	}
}

func TestWrapKeepsAFigureWithItsUnit(t *testing.T) {
	t.Parallel()
	got := Wrap("⏸ 1.15 s: 700 ms upstream + 450 ms path", 14)
	// Without the join the third line was "upstream + 450" and the fourth
	// began with its unit.
	want := []string{"⏸ 1.15 s:", "700 ms", "upstream +", "450 ms path"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("Wrap = %q, want %q", got, want)
	}
}
