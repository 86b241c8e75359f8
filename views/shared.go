package views

// GapBucketLabel names gap bucket i (stats.GapBucketEdges) as the gap
// panel does, "500–1s" for one. The HTML report labels its histogram with
// it, so both read the same.
func GapBucketLabel(i int) string { return bucketLabel(i) }
