package compare_test

import (
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/record"
)

// A replay 2 streams into the recording's 11, slower to its first token:
// while it is measured, its counts (completed) are progress
// and carry no worse mark; its TTFT is a figure and keeps its mark. The
// finished comparison marks every row as it is.
func TestWhileMeasuringMarksNoCount(t *testing.T) {
	t.Parallel()
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

// A replay that has come to the recording's first model only differs in
// its models by its progress ("A a, b · B a" warned "workload differs"
// one stream in); a model the recording never sent is a difference still,
// and the finished comparison keeps both.
func TestWhileMeasuringKeepsNoPartialSetting(t *testing.T) {
	t.Parallel()
	recorded := hostRecords(t, "a", 4, 100, 20, nil)
	for i, r := range recorded {
		r.Model = []string{"m1", "m2"}[i%2]
	}
	replayed := hostRecords(t, "b", 1, 100, 20, nil)
	replayed[0].Model = "m1"
	other := hostRecords(t, "b", 1, 100, 20, nil)
	other[0].Model = "m3"
	models := func(c *compare.Comparison) bool {
		for _, d := range c.Workload {
			if d.Setting == "model" {
				return true
			}
		}
		return false
	}
	for _, tc := range []struct {
		name        string
		run         []*record.Record
		final, live bool // whether the model is a difference
	}{{"part of the recording's models", replayed, true, false}, {"a model it never sent", other, true, true}} {
		c := newComparison(t, recorded, tc.run)
		if models(c) != tc.final {
			t.Errorf("%s, finished: model differs %v, want %v", tc.name, models(c), tc.final)
		}
		compare.WhileMeasuring(c)
		if models(c) != tc.live {
			t.Errorf("%s, while measuring: model differs %v, want %v (%v)", tc.name, models(c), tc.live, c.Workload)
		}
	}
}
