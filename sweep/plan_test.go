package sweep_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/sweep"
)

// Levels take one value or a rising list, concurrencies whole and at least
// 1, rates finite and in probe's range; a bad value is refused naming it.
func TestLevelsParseAndRefuse(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		s     string
		whole bool
		want  []float64
		err   string
	}{
		{"1, 2,4,8", true, []float64{1, 2, 4, 8}, ""},
		{"0.5,2", false, []float64{0.5, 2}, ""},
		{"1,2.5", true, nil, `"2.5": must be at least 1, a whole number`},
		{"4,2", true, nil, `"2": a sweep's levels must rise`},
		{"1,NaN", false, nil, `"NaN" is not a finite number`},
		{"0,1", false, nil, `"0": must be a positive number`},
	} {
		l := sweep.Levels{Whole: tc.whole}
		err := l.Set(tc.s)
		if (err == nil) != (tc.err == "") || err != nil && !strings.Contains(err.Error(), tc.err) || !slices.Equal(l.Vals, tc.want) {
			t.Errorf("%q: %v %v; want %v %q", tc.s, l.Vals, err, tc.want, tc.err)
		}
	}
	if l := (sweep.Levels{Vals: []float64{1, 2, 4}}); l.String() != "1,2,4" || l.First(9) != 1 {
		t.Errorf("String %q First %v", l.String(), l.First(9))
	}
}

// A concurrency sweep whose runs per level are fewer than its top level's
// streams in flight is refused: that level would never hold them.
func TestValidateRefusesTooFewRunsPerLevel(t *testing.T) {
	t.Parallel()
	sp := sweep.Plan{Kind: sweep.KindConcurrency, Levels: []float64{1, 8}, Base: probe.Plan{Runs: 4}}
	if err := sp.Validate(); err == nil || !strings.Contains(err.Error(), "below concurrency 8") {
		t.Errorf("4 runs per level up to 8 in flight: %v", err)
	}
	sp.Base.Runs = 8
	if err := sp.Validate(); err != nil {
		t.Errorf("8 runs per level: %v", err)
	}
}
