package compare_test

import (
	"testing"

	"github.com/driplab/drip/compare"
)

// A replay 2 streams into the recording's 11, slower to its first token:
// while it is measured, its counts (completed) are progress
// and carry no worse mark; its TTFT is a figure and keeps its mark. The
// finished comparison marks every row as it is.
func TestWhileMeasuringMarksNoCount(t *testing.T) {
	recorded := hostRecords(t, "a", 11, 100, 20, nil)
	replayed := hostRecords(t, "b", 2, 300, 20, nil)
	marked := func(c *compare.Comparison, key string) bool { return findRow(t, c, key).Deltas[1].Worse }
	c := newComparison(t, recorded, replayed)
	for _, key := range []string{"completed", "ttft.p50"} {
		if !marked(c, key) {
			t.Errorf("finished: %s not marked worse (%v → %v)", key, *findRow(t, c, key).Values[0], *findRow(t, c, key).Values[1])
		}
	}
	compare.WhileMeasuring(c)
	for key, want := range map[string]bool{"completed": false, "ttft.p50": true} {
		if marked(c, key) != want {
			t.Errorf("while measuring: %s marked worse %v, want %v", key, marked(c, key), want)
		}
	}
}
