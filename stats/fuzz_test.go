package stats

import (
	"math"
	"strings"
	"testing"
)

// The seed corpus is in testdata/fuzz/FuzzParseGate, with more added here.

// FuzzParseGate: an accepted gate names a known metric with a finite
// value, and its own text parses to the same gate.
func FuzzParseGate(f *testing.F) {
	for _, s := range []string{"ttft.p95 > 800ms", "failed > 0", "gap.p99 > +20ms", "ttft.p95 > +10%", "throughput < 50/s",
		"llm.time_to_first_token.p95 > 1s", "e2e.max <= 1.5e3us", "ttft > 1", "ttft.p95 > 1e999ms", "stalls.longest >= -0.5s"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, expr string) {
		g, err := ParseGate(expr)
		if err != nil {
			if !strings.Contains(err.Error(), "gate ") {
				t.Fatalf("error %q does not say which gate", err)
			}
			return
		}
		if math.IsNaN(g.Value) || math.IsInf(g.Value, 0) {
			t.Fatalf("%q accepted with value %v", expr, g.Value)
		}
		base, _, _ := strings.Cut(g.Metric, ".")
		if _, isDist := gateDist(base); scalars[g.Metric].get == nil && !isDist {
			t.Fatalf("%q accepted with unknown metric %q", expr, g.Metric)
		}
		again, err := ParseGate(g.Expr)
		if err != nil || again != g {
			t.Fatalf("%q parsed to %+v; its Expr parses to %+v, %v", expr, g, again, err)
		}
	})
}
