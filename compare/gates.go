package compare

import (
	"fmt"
	"math"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// GateResult is a gate's verdict on one run.
type GateResult struct {
	Run      string `json:"run"`       // the run's label
	RunIndex int    `json:"run_index"` // its place in the comparison, 0 for the baseline
	stats.GateResult
}

// evalGates judges every gate on every run but the baseline, which is the
// reference the others are held to. A relative gate ("ttft.p95 > +10%",
// "gap.p99 > +20ms") compares the run's change from the baseline. An
// absolute one works as in drip run. Each verdict is also added to its
// run's summary.
func evalGates(gates []stats.Gate, runs []Run) []GateResult {
	var out []GateResult
	base := &runs[0].Summary
	for i := 1; i < len(runs); i++ {
		s := &runs[i].Summary
		for _, g := range gates {
			r := g.Eval(s)
			if g.Relative {
				r = EvalRelative(g, base, s)
			}
			s.Gates = append(s.Gates, r)
			out = append(out, GateResult{Run: runs[i].Label, RunIndex: i, GateResult: r})
		}
	}
	return out
}

// EvalRelative judges a relative gate by the change of the gate's metric
// from base to s, as a percentage of the baseline ("+10%") or in the
// metric's unit ("+20ms", "+2"). A metric with no samples in either run
// trips the gate, because a missing number never passes silently.
func EvalRelative(g stats.Gate, base, s *stats.Summary) stats.GateResult {
	r := stats.GateResult{Expr: g.Expr, Tripped: true}
	b, v := g.Lookup(base), g.Lookup(s)
	switch {
	case b == nil || math.IsNaN(*b):
		r.Message = fmt.Sprintf("%s has no samples in the baseline: the gate cannot pass", g.Metric)
		return r
	case v == nil || math.IsNaN(*v):
		r.Message = fmt.Sprintf("%s has no samples in this run: the gate cannot pass", g.Metric)
		return r
	}
	change := *v - *b
	unit := g.Unit
	figure, num := textfmt.Num, textfmt.Num
	if unit == "" {
		// A bare change is in counts ("failed > +1"), so 0 → 3 is +3, not +3.00.
		figure, num = textfmt.Whole, textfmt.Whole
	}
	if g.IsCount() {
		figure = textfmt.Whole // and its figures beside a % change, failed 0 → 6, not 0.00 → 6.00
	}
	if g.IsTime() {
		figure = textfmt.OptMS // 182 ms → 700 ms, as every report prints a time
	}
	if g.Unit == "%" {
		switch {
		case *b != 0:
			change = change / math.Abs(*b) * 100
		case change != 0:
			// A change from 0 is infinitely many percent. It can still
			// trip "> +10%", but has no value to report.
			r.Tripped = stats.Holds(math.Copysign(math.Inf(1), change), g.Op, g.Value)
			r.Message = fmt.Sprintf("%s %s → %s: the baseline is 0, so the change is unbounded: %s",
				g.Metric, figure(b), figure(v), stats.Verdict(r.Tripped))
			return r
		}
	}
	r.Value = &change
	r.Tripped = stats.Holds(change, g.Op, g.Value)
	var delta string
	if unit == "ms" {
		delta = textfmt.Plus(change, stats.MSApartFrom(change, g.Value))
	} else {
		delta = stats.ApartFrom(signedAs(change, num), change, g.Value) + unit
	}
	r.Message = fmt.Sprintf("%s %s → %s: %s against the baseline: %s",
		g.Metric, figure(b), figure(v), delta, stats.Verdict(r.Tripped))
	return r
}

// signed prints a change with its sign. No change is 0.
func signed(v float64) string { return signedAs(v, textfmt.Num) }

// signedAs is signed with num's format. With textfmt.Whole a count of 0
// that became 3 rose by +3, not +3.00.
func signedAs(v float64, num func(*float64) string) string {
	if v > 0 {
		return "+" + num(&v)
	}
	return num(&v)
}
