package views

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// A quadrant label never touches a point: at 80 columns a run at TTFT
// 181 ms with tight gaps sat right after "healthy" and read "healthyB".
func TestScatterLabelsKeepClearOfPoints(t *testing.T) {
	st := NewStyles(false, true)
	pts := []ScatterPoint{{Series: 0, TTFTMS: 181.3, GapMS: 699.7}, {Series: 1, TTFTMS: 181.1, GapMS: 25.8}}
	touching := regexp.MustCompile(`[A-Z*•](healthy|queue|transport|both)|(healthy|queue|transport|both)[A-Z*•]`)
	for _, w := range []int{60, 72, 80, 120} {
		out := ansi.Strip(Scatter(pts, true, 0, stats.DefaultStall, w, 14, &st))
		if m := touching.FindString(out); m != "" {
			t.Errorf("width %d: a label touches a point (%q):\n%s", w, m, out)
		}
		for _, want := range []string{"A", "B", "healthy", "transport"} {
			if !strings.Contains(out, want) {
				t.Errorf("width %d: no %q:\n%s", w, want, out)
			}
		}
	}
}

// The count of runs left off the scatter survives a narrow panel: it
// comes before the quadrants' key, which is cut first.
func TestScatterSaysWhatIsNotDrawn(t *testing.T) {
	st := NewStyles(false, true)
	pts := []ScatterPoint{{Series: 0, TTFTMS: 223, GapMS: 65}, {Series: 1, TTFTMS: 224, GapMS: 485}}
	out := ansi.Strip(Scatter(pts, true, 1, stats.DefaultStall, 80, 14, &st))
	if !strings.Contains(out, "1 without a ttft or gaps, not drawn") {
		t.Errorf("80 columns: the caption lost the count of runs not drawn:\n%s", out)
	}
}

// TestScatterCountsStreamsInACell: identical streams overlapped into one
// "•" under a title promising a point per stream; a cell of the one
// series holding several points draws their number (2–9, "+" for ten or
// more) and the caption says how many points stand in how many cells and
// what the digits mean.
func TestScatterCountsStreamsInACell(t *testing.T) {
	st := NewStyles(false, true)
	same := func(n int, ttft, gap float64) []ScatterPoint {
		pts := make([]ScatterPoint, n)
		for i := range pts {
			pts[i] = ScatterPoint{Series: -1, TTFTMS: ttft, GapMS: gap}
		}
		return pts
	}
	const legend = " · 2–9: that many, + 10 or more"
	for _, tc := range []struct {
		name   string
		pts    []ScatterPoint
		marks  string // the plot's point marks, top row first, left to right
		legend string // "" where no cell holds two points
	}{
		{"one", same(1, 180, 700), "•", ""},
		{"three alike", same(3, 180, 700), "3", "3 points in 1 cell" + legend},
		{"twelve alike", same(12, 180, 700), "+", "12 points in 1 cell" + legend},
		{"three and one", append(same(3, 180, 700), same(1, 1500, 30)...), "3•", "4 points in 2 cells" + legend},
	} {
		out := ansi.Strip(Scatter(tc.pts, false, 0, stats.DefaultStall, 80, 14, &st))
		lines := strings.Split(out, "\n")
		marks := ""
		for _, l := range lines[:len(lines)-2] { // the plot rows, not the axis or the caption
			plot := strings.Replace(string([]rune(l)[8:]), "stall "+textfmt.MS(stats.DefaultStall), "", 1)
			for _, r := range plot {
				if strings.ContainsRune("•+23456789", r) {
					marks += string(r)
				}
			}
		}
		if marks != tc.marks {
			t.Errorf("%s: the plot's marks are %q, want %q:\n%s", tc.name, marks, tc.marks, out)
		}
		caption := lines[len(lines)-1]
		if tc.legend == "" && strings.Contains(caption, "2–9") || tc.legend != "" && !strings.Contains(caption, "y gap p99 · "+tc.legend) {
			t.Errorf("%s: caption %q, want the digits' legend %q", tc.name, caption, tc.legend)
		}
	}
}

// TestScatterCountsRunsOfATarget: on the watch and compare scatters
// several runs of one target in one cell showed one letter, as if there
// were one run. The count follows the letter ("A3"), in the letter's
// colour, so the target reads without colour too (a point takes two
// cells, so a count never lands on another point); targets meeting in a
// cell are a "*" with their count, and the caption names them.
func TestScatterCountsRunsOfATarget(t *testing.T) {
	runs := func(series, n int, ttft, gap float64) []ScatterPoint {
		pts := make([]ScatterPoint, n)
		for i := range pts {
			pts[i] = ScatterPoint{Series: series, TTFTMS: ttft, GapMS: gap}
		}
		return pts
	}
	cat := func(p ...[]ScatterPoint) []ScatterPoint { return slices.Concat(p...) }
	for _, tc := range []struct {
		name   string
		pts    []ScatterPoint
		width  int
		marks  string   // the plot's marks, top row first
		legend []string // the caption's key, each part whole on a row, in order
	}{
		{"one run each", cat(runs(0, 1, 180, 30), runs(1, 1, 180, 700)), 120, "BA", nil},
		{"three of A", cat(runs(0, 3, 180, 30), runs(1, 1, 180, 700)), 120, "BA3", []string{"4 points in 2 cells", "A3: 3 of A in one cell"}},
		{"twelve of B", cat(runs(0, 1, 180, 30), runs(1, 12, 180, 700)), 120, "B+A", []string{"13 points in 2 cells", "B+: 10 or more of B in one cell"}},
		{"both", cat(runs(0, 2, 180, 700), runs(1, 3, 800, 30), runs(0, 1, 800, 30)), 120, "A2*4", []string{"6 points in 2 cells", "*4: A, B in one cell", "A2: 2 of A in one cell"}},
		{"side by side", cat(runs(0, 3, 180, 30), runs(1, 1, 195, 30)), 120, "A3B", []string{"4 points in 2 cells", "A3: 3 of A in one cell"}},
	} {
		checkScatterKey(t, tc.name, tc.pts, tc.width, tc.marks, tc.legend)
	}
	// Three kinds of held cell: at narrow widths the key takes the rows it
	// needs (it was cut to two, losing the "*" part and the count key).
	three := cat(runs(1, 12, 180, 700), runs(0, 3, 800, 30), runs(1, 1, 800, 30), runs(2, 2, 180, 30))
	for _, w := range []int{40, 60, 80} {
		checkScatterKey(t, "three kinds", three, w, "B+C2*4",
			[]string{"18 points in 3 cells", "*4: A, B in one cell", "C2: 2 of C in one cell", "B+: 10 or more of B in one cell"})
	}
	// Where even the rows left cannot hold the key, it says so.
	st := NewStyles(true, false)
	short := strings.Split(ansi.Strip(Scatter(three, true, 0, stats.DefaultStall, 40, 8, &st)), "\n")
	if last := strings.TrimSpace(short[len(short)-1]); last != "(the key does not fit: widen)" {
		t.Errorf("at 40×8 the caption ends %q, want the note that the key does not fit:\n%s", last, strings.Join(short, "\n"))
	}
	// In colour the count wears its target's colour.
	st = NewStyles(true, true)
	out := Scatter(runs(1, 3, 180, 700), true, 0, stats.DefaultStall, 120, 14, &st)
	if want := st.Burst.Render("B3"); !strings.Contains(out, want) {
		t.Errorf("the count is not in B's colour: no %q in\n%q", want, out)
	}
}

// checkScatterKey draws pts at width by 14 and checks the plot's marks
// and that each part of the key stands whole on a caption row, in order
// (legend nil: no count key at all).
func checkScatterKey(t *testing.T, name string, pts []ScatterPoint, width int, marks string, legend []string) {
	t.Helper()
	st := NewStyles(true, false)
	out := ansi.Strip(Scatter(pts, true, 0, stats.DefaultStall, width, 14, &st))
	lines := strings.Split(out, "\n")
	got := ""
	axis := slices.IndexFunc(lines, func(l string) bool { return strings.Contains(l, "0─") })
	if axis < 0 {
		t.Fatalf("%s: no axis row in\n%s", name, out)
	}
	for _, l := range lines[:axis] { // the plot rows
		plot := strings.Replace(string([]rune(l)[8:]), "stall "+textfmt.MS(stats.DefaultStall), "", 1)
		for _, r := range plot {
			if strings.ContainsRune("ABC*+23456789", r) {
				got += string(r)
			}
		}
	}
	if got != marks {
		t.Errorf("%s: the plot's marks are %q, want %q:\n%s", name, got, marks, out)
	}
	caption := strings.Join(lines[axis+1:], "\n")
	if legend == nil && strings.Contains(caption, "in one cell") {
		t.Errorf("%s: caption %q has a count key", name, caption)
	}
	at := 0
	for _, part := range legend {
		i := strings.Index(caption[at:], part)
		if i < 0 {
			t.Errorf("%s at %d: caption lacks %q whole after %q:\n%s", name, width, part, caption[:at], out)
			break
		}
		at += i + len(part)
	}
}
