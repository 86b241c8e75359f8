package views

import (
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Short of rows, the histogram keeps the bucket holding most gaps and then
// the largest ones: both the mass and the stall stay on screen, and the
// buckets it leaves out are counted in the row above them, whose label
// says so: every gap is on some row (at 80×24 a 10–20ms gap was dropped,
// the rows counting 53 of 54).
func TestGapHistogramKeepsMassAndStall(t *testing.T) {
	r := replay(t, "mid-sentence-stall", 0)
	r.Frames[3].TMS = r.Frames[2].TMS + 15 // a gap of 10–20ms below the mass
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	st := NewStyles(false, true)
	row := regexp.MustCompile(`^\s*(.+? m?s) █+ (\d+)\s*$`)
	for _, tc := range []struct {
		rows  int
		first string // the mass
		last  string // the stall's row
	}{{1, "10 ms–1 s", "10 ms–1 s"}, {2, "10–50 ms", "200 ms–1 s"}, {3, "10–50 ms", "500 ms–1 s"}, {4, "10–20 ms", "500 ms–1 s"}} {
		out := ansi.Strip(Gaps(r, 60, tc.rows, &st))
		lines := strings.Split(out, "\n")
		counted := 0
		for _, l := range lines {
			if m := row.FindStringSubmatch(l); m != nil {
				n, _ := strconv.Atoi(m[2])
				counted += n
			}
		}
		first, last := row.FindStringSubmatch(lines[0]), row.FindStringSubmatch(lines[len(lines)-1])
		if counted != len(r.Gaps()) || first == nil || first[1] != tc.first || last == nil || last[1] != tc.last {
			t.Errorf("%d rows: %d of %d gaps counted, want the first row %s and the last %s:\n%s", tc.rows, counted, len(r.Gaps()), tc.first, tc.last, out)
		}
		// The compare screen's histogram (a column per run) rows them alike.
		out = ansi.Strip(CompareHistogram([]string{"A", "B"}, [][]float64{r.Gaps(), r.Gaps()}, r.StallMS, 80, tc.rows+1, &st))
		counted = 0
		for _, m := range regexp.MustCompile(`█+ (\d+)`).FindAllStringSubmatch(out, -1) {
			n, _ := strconv.Atoi(m[1])
			counted += n
		}
		if counted != 2*len(r.Gaps()) {
			t.Errorf("compare, %d rows: %d of %d gaps counted:\n%s", tc.rows, counted, 2*len(r.Gaps()), out)
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
		{"sub-ms", []float64{0, 0.2, 0.5, 0.6, 1.4, 1.5, 1.7}, "0.8 ms"},
		{"tens of µs", []float64{0, 0.01, 0.03, 0.07, 0.08}, "0.040 ms"},
		{"ms", []float64{0, 25, 50, 750, 775}, "700 ms"},
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
