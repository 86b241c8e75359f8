package stats

// GapBucketEdges are the upper edges (ms) of the gap histogram's log
// buckets, in a 1-2-5 series. Bucket i holds the gaps below edge i, and
// one bucket past the last edge holds the gaps of 10 s and more. A lone
// 700 ms stall gets a bucket of its own beside a mass at 25 ms. The
// screens and the HTML report bucket with these, so both draw the same
// histogram.
var GapBucketEdges = [...]float64{1, 2, 5, 10, 20, 50, 100, 200, 500, 1000, 2000, 5000, 10000}

// GapBuckets is how many gap buckets there are.
const GapBuckets = len(GapBucketEdges) + 1

// GapBucket is the bucket a gap of v ms falls in.
func GapBucket(v float64) int {
	for i, e := range GapBucketEdges {
		if v < e {
			return i
		}
	}
	return len(GapBucketEdges)
}

// GapBucketCounts counts vals (ms) by gap bucket.
func GapBucketCounts(vals []float64) []int {
	counts := make([]int, GapBuckets)
	for _, v := range vals {
		counts[GapBucket(v)]++
	}
	return counts
}

// GapBucketFrom is the lower edge (ms) of bucket i. The first bucket
// starts at 0.
func GapBucketFrom(i int) float64 {
	if i == 0 {
		return 0
	}
	return GapBucketEdges[i-1]
}

// HeatShadeEdges are the upper edges (ms) of a heatmap's first three
// shades for a stall threshold. They are 10 ms and 50 ms, kept below the
// threshold, and the threshold itself. The fourth shade is a stall.
func HeatShadeEdges(stallMS float64) [3]float64 {
	e2 := min(50, stallMS)
	return [3]float64{min(10, e2), e2, stallMS}
}

// HeatShade is the shade of a gap of v ms, from 0 (the lightest) to 3 (a
// stall).
func HeatShade(v float64, edges [3]float64) int {
	for i, e := range edges {
		if v < e {
			return i
		}
	}
	return 3
}
