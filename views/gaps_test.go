package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/record"
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

// A sub-millisecond gap line labels its rows with enough decimals to tell
// them apart (with %.0f every row read "0"), and its top row is the peak.
func TestGapLineLabelsSubMillisecond(t *testing.T) {
	for _, tc := range []struct {
		name  string
		times []float64 // content frame times, ms
		top   string
	}{
		{"sub-ms", []float64{0, 0.2, 0.5, 0.6, 1.4, 1.5, 1.7}, "0.8"},
		{"tens of µs", []float64{0, 0.01, 0.03, 0.07, 0.08}, "0.040"},
		{"ms", []float64{0, 25, 50, 750, 775}, "700"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := &record.Record{StallMS: 250}
			for i, at := range tc.times {
				r.Frames = append(r.Frames, record.Frame{TMS: at, Read: i, Kind: record.KindContent, Text: "x"})
			}
			st := NewStyles(false, true)
			out := ansi.Strip(gapLine(r.Gaps(), r.StallMS, 60, 10, &st))
			labels := axisLabels(out)
			if len(labels) < 5 {
				t.Fatalf("want at least 5 y labels, got %q:\n%s", labels, out)
			}
			if labels[0] != tc.top {
				t.Errorf("top label %q, want the peak %q:\n%s", labels[0], tc.top, out)
			}
			seen := map[string]bool{}
			for _, l := range labels {
				if seen[l] {
					t.Errorf("label %q repeats: %q\n%s", l, labels, out)
				}
				seen[l] = true
			}
		})
	}
}

// axisLabels returns the y labels of an asciigraph plot, top first.
func axisLabels(plot string) []string {
	var labels []string
	for _, line := range strings.Split(plot, "\n") {
		if i := strings.IndexAny(line, "┤┼"); i > 0 {
			labels = append(labels, strings.TrimSpace(line[:i]))
		}
	}
	return labels
}
