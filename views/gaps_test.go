package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
)

// Short of rows, the histogram keeps the bucket holding most gaps and then
// the largest ones: both the mass and the stall stay on screen.
func TestGapHistogramKeepsMassAndStall(t *testing.T) {
	r := replay(t, "mid-sentence-stall", 0)
	st := NewStyles(false, true)
	out := ansi.Strip(Gaps(r, 60, 2, &st))
	for _, want := range []string{"20–50ms", "500–1s"} {
		if !strings.Contains(out, want) {
			t.Errorf("2-row histogram lacks the %s bucket:\n%s", want, out)
		}
	}
}
