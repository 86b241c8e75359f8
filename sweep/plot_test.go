package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"
)

// TestTextPlotsGolden: the text report's plots by level, as the report
// has printed them since they were drawn in views; each line within 80
// columns and without trailing spaces.
func TestTextPlotsGolden(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	TextPlots(&b, syntheticResult(t))
	golden.RequireEqual(t, b.Bytes())
	fitsWidth(t, b.String())
	for l := range strings.Lines(b.String()) {
		if strings.TrimRight(l, " \n") != strings.TrimSuffix(l, "\n") {
			t.Errorf("trailing space: %q", l)
		}
	}
}

// A plot waits for two levels and says so.
func TestTextPlotsWaitForTwoLevels(t *testing.T) {
	t.Parallel()
	r := syntheticResult(t)
	r.Levels = r.Levels[:1]
	var b bytes.Buffer
	TextPlots(&b, r)
	if got := strings.Count(b.String(), "two levels make a line"); got != 3 {
		t.Errorf("%d plots say they wait for two levels, want 3:\n%s", got, b.String())
	}
}
