package stats

import (
	"math"
	"testing"
)

// Percentiles of the runtime's histogram are bucket upper edges in ms, the
// open last bucket its lower edge.
func TestHistDist(t *testing.T) {
	d := BucketDist([]uint64{0, 6, 3, 1}, []float64{0, 0.001, 0.002, 0.004, math.Inf(1)})
	if d.N != 10 {
		t.Fatalf("n = %d, want 10", d.N)
	}
	eq(t, "min", d.Min, 2)
	eq(t, "p50", d.P50, 2)
	eq(t, "p90", d.P90, 4)
	eq(t, "p99", d.P99, 4)
	eq(t, "max", d.Max, 4)
	if d.Mean != nil {
		t.Errorf("mean = %v, want null: bucket counts carry no sum", *d.Mean)
	}
	if e := BucketDist([]uint64{0, 0}, []float64{0, 1, 2}); e.N != 0 || e.P99 != nil {
		t.Errorf("empty histogram: %+v, want n 0 and null figures", e)
	}
}
