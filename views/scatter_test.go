package views

import (
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/stats"
)

// A quadrant label never touches a point: at 80 columns a run at TTFT
// 181 ms with tight gaps sat right after "healthy" and read "healthyB".
func TestScatterLabelsKeepClearOfPoints(t *testing.T) {
	st := NewStyles(false, true)
	pts := []ScatterPoint{{Series: 0, TTFTMS: 181.3, GapMS: 699.7}, {Series: 1, TTFTMS: 181.1, GapMS: 25.8}}
	touching := regexp.MustCompile(`[A-Z*•](healthy|queue|transport|both)|(healthy|queue|transport|both)[A-Z*•]`)
	for _, w := range []int{60, 72, 80, 120} {
		out := ansi.Strip(Scatter(pts, 0, stats.DefaultStall, w, 14, &st))
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
	out := ansi.Strip(Scatter(pts, 1, stats.DefaultStall, 80, 14, &st))
	if !strings.Contains(out, "1 without a ttft or gaps, not drawn") {
		t.Errorf("80 columns: the caption lost the count of runs not drawn:\n%s", out)
	}
}
