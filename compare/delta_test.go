package compare

import (
	"testing"

	"github.com/driplab/drip/stats"
)

func TestDeltaDirectionAndMarking(t *testing.T) {
	t.Parallel()
	p := func(v float64) *float64 { return &v }
	for _, c := range []struct {
		name     string
		base, v  *float64
		better   stats.Better
		abs, pct *float64
		worse    bool
	}{
		{"latency up 20%", p(200), p(240), stats.LowerIsBetter, p(40), p(20), true},
		{"latency up exactly 10%", p(200), p(220), stats.LowerIsBetter, p(20), p(10), true},
		{"latency up 5%", p(200), p(210), stats.LowerIsBetter, p(10), p(5), false},
		{"latency down 50%", p(200), p(100), stats.LowerIsBetter, p(-100), p(-50), false},
		{"throughput down 20%", p(100), p(80), stats.HigherIsBetter, p(-20), p(-20), true},
		{"throughput up 20%", p(100), p(120), stats.HigherIsBetter, p(20), p(20), false},
		{"throughput down 5%", p(100), p(95), stats.HigherIsBetter, p(-5), p(-5), false},
		{"failures from none", p(0), p(2), stats.LowerIsBetter, p(2), nil, true},
		{"no failures either side", p(0), p(0), stats.LowerIsBetter, p(0), p(0), false},
		{"completions from none", p(0), p(3), stats.HigherIsBetter, p(3), nil, false},
		{"neutral count doubles", p(100), p(200), stats.Neutral, p(100), p(100), false},
		{"neutral count halves", p(100), p(50), stats.Neutral, p(-50), p(-50), false},
		{"undefined in the run", p(200), nil, stats.LowerIsBetter, nil, nil, false},
		{"undefined in the baseline", nil, p(200), stats.LowerIsBetter, nil, nil, false},
	} {
		d := delta(c.base, c.v, c.better)
		if !same(d.Abs, c.abs) || !same(d.Pct, c.pct) || d.Worse != c.worse {
			t.Errorf("%s: abs %v pct %v worse %v, want %v %v %v", c.name, show(d.Abs), show(d.Pct), d.Worse, show(c.abs), show(c.pct), c.worse)
		}
	}
}

func same(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

func show(v *float64) any {
	if v == nil {
		return "nil"
	}
	return *v
}
