package stats_test

import (
	"testing"

	"github.com/driplab/drip/stats"
)

// A gap on an edge goes to the bucket above it, and the last bucket takes
// every gap from 10 s up.
func TestGapBucketsSplitOnTheirEdges(t *testing.T) {
	t.Parallel()
	counts := stats.GapBucketCounts([]float64{0, 0.999, 1, 25, 700, 9999, 10000, 1e9})
	want := map[int]int{0: 2, 1: 1, 5: 1, 9: 1, 12: 1, 13: 2}
	if len(counts) != stats.GapBuckets {
		t.Fatalf("%d buckets, want %d", len(counts), stats.GapBuckets)
	}
	for i, n := range counts {
		if n != want[i] {
			t.Errorf("bucket %d (from %g ms) holds %d, want %d", i, stats.GapBucketFrom(i), n, want[i])
		}
	}
}

// The shades stay below a low stall threshold, and a gap at the
// threshold is a stall.
func TestHeatShadesKeepBelowTheStallThreshold(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		stallMS float64
		gap     float64
		want    int
	}{
		{250, 9, 0}, {250, 10, 1}, {250, 49, 1}, {250, 50, 2}, {250, 249, 2}, {250, 250, 3},
		{30, 9, 0}, {30, 10, 1}, {30, 29, 1}, {30, 30, 3},
	} {
		if got := stats.HeatShade(tc.gap, stats.HeatShadeEdges(tc.stallMS)); got != tc.want {
			t.Errorf("stall %g ms, gap %g ms: shade %d, want %d", tc.stallMS, tc.gap, got, tc.want)
		}
	}
}
