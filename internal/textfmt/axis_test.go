package textfmt

import (
	"slices"
	"testing"
)

func TestAxisRowsSpanZeroToThePeak(t *testing.T) {
	t.Parallel()
	if got := AxisRows(700, 7); !slices.Equal(got, []float64{0, 100, 200, 300, 400, 500, 600, 700}) {
		t.Errorf("AxisRows(700, 7) = %v", got)
	}
	if w := AxisLabelWidth(AxisRows(1500, 3), MS); w != 6 {
		t.Errorf("widest of 0 ms, 500 ms, 1 s, 1.5 s: %d columns, want 6", w)
	}
}
