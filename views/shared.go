package views

// The gap buckets and heatmap shades, for drawings of another kind (the
// HTML report, internal/htmlreport) that must bucket and shade exactly as
// the screens do.

// GapBucketCounts counts values in the gap histogram's log buckets: a
// 1-2-5 series of upper edges, the last bucket ≥ 10 s.
func GapBucketCounts(vals []float64) []int {
	counts := make([]int, len(bucketEdges)+1)
	for _, v := range vals {
		counts[bucketOf(v)]++
	}
	return counts
}

// GapBucketLabel names bucket i, as the gap panel does: "500–1s".
func GapBucketLabel(i int) string { return bucketLabel(i) }

// GapBucketFrom is the lower edge (ms) of bucket i; 0 for the first.
func GapBucketFrom(i int) float64 {
	if i == 0 {
		return 0
	}
	return bucketEdges[i-1]
}

// HeatShadeEdges are the upper edges (ms) of the heatmap's first three
// shades for a stall threshold; the fourth is a stall.
func HeatShadeEdges(stallMS float64) [3]float64 { return shadeEdges(stallMS) }

// HeatShade is a gap's shade, 0 (lightest) to 3 (a stall).
func HeatShade(v float64, edges [3]float64) int { return shade(v, edges) }
