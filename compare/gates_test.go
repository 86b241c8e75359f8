package compare_test

import (
	"strings"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/stats"
)

// The grammar of relative gates, as drip compare reads them.
func TestParseRelativeGates(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		expr     string
		metric   string
		op       string
		value    float64
		unit     string
		relative bool
		err      string
	}{
		{expr: "ttft.p95 > +10%", metric: "ttft.p95", op: ">", value: 10, unit: "%", relative: true},
		{expr: "gap.p99 > +20ms", metric: "gap.p99", op: ">", value: 20, unit: "ms", relative: true},
		{expr: "gap.p99>+0.02s", metric: "gap.p99", op: ">", value: 20, unit: "ms", relative: true},
		{expr: "e2e.p50 >= +1500us", metric: "e2e.p50", op: ">=", value: 1.5, unit: "ms", relative: true},
		{expr: "throughput < -10%", metric: "throughput", op: "<", value: -10, unit: "%", relative: true},
		{expr: "failed > +2", metric: "failed", op: ">", value: 2, relative: true},
		{expr: "  itl.p50 > +5 %  ", metric: "itl.p50", op: ">", value: 5, unit: "%", relative: true},
		{expr: "ttft.p95 > 800ms", metric: "ttft.p95", op: ">", value: 800, unit: "ms"},
		{expr: "ttft.p95 > 800", metric: "ttft.p95", op: ">", value: 800, unit: "ms"},
		{expr: "failed > 0", metric: "failed", op: ">", value: 0},
		{expr: "ttft > +10%", err: "is a distribution"},
		{expr: "ttft.p42 > +10%", err: "unknown statistic"},
		{expr: "latency.p95 > +10%", err: "unknown metric"},
		{expr: "failed > +2ms", err: "not a time"},
		{expr: "ttft.p95 > 10%", err: "relative gates"},
		{expr: "ttft.p95 > +10", err: `gate "ttft.p95 > +10": a change of a time takes a unit: +10% (of the baseline) or +10ms`},
		{expr: "llm.itl-p95 < -2.5", err: "a change of a time takes a unit: -2.5% (of the baseline) or -2.5ms"},
		{expr: "stalls.longest > +100", err: "a change of a time takes a unit"},
		{expr: "llm.ttft-p95 > 800", metric: "ttft.p95", op: ">", value: 800, unit: "ms"},
		{expr: "ttft.p95 +10%", err: "want METRIC OP VALUE"},
		{expr: "ttft.p95 > ++10%", err: "want METRIC OP VALUE"},
	} {
		g, err := stats.ParseGate(c.expr)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: error %v, want one containing %q", c.expr, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if g.Metric != c.metric || g.Op != c.op || g.Value != c.value || g.Unit != c.unit || g.Relative != c.relative {
			t.Errorf("%q: got %+v", c.expr, g)
		}
	}
}

func summaryWith(ttftP95 *float64, failed int, tps *float64) *stats.Summary {
	s := &stats.Summary{}
	s.Metrics = stats.Metrics{"ttft_ms": {P95: ttftP95}}
	s.Streams.Failed = failed
	s.Throughput.TokensPerS = tps
	return s
}

func f(v float64) *float64 { return &v }

func TestEvalRelative(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		expr       string
		base, run  *stats.Summary
		tripped    bool
		value      *float64
		msgContain string
	}{
		{"ttft.p95 > +10%", summaryWith(f(200), 0, nil), summaryWith(f(230), 0, nil), true, f(15), "+15.00% against the baseline: TRIPPED"},
		{"ttft.p95 > +10%", summaryWith(f(200), 0, nil), summaryWith(f(210), 0, nil), false, f(5), "passed"},
		{"ttft.p95 > +10%", summaryWith(f(200), 0, nil), summaryWith(f(150), 0, nil), false, f(-25), "passed"},
		{"ttft.p95 > +20ms", summaryWith(f(200), 0, nil), summaryWith(f(225), 0, nil), true, f(25), "+25 ms against the baseline: TRIPPED"},
		{"ttft.p95 > +20ms", summaryWith(f(200), 0, nil), summaryWith(f(215), 0, nil), false, f(15), "passed"},
		{"throughput < -10%", summaryWith(nil, 0, f(100)), summaryWith(nil, 0, f(80)), true, f(-20), "TRIPPED"},
		{"throughput < -10%", summaryWith(nil, 0, f(100)), summaryWith(nil, 0, f(120)), false, f(20), "passed"},
		{"failed > +1", summaryWith(nil, 1, nil), summaryWith(nil, 3, nil), true, f(2), "failed 1 → 3: +2 against the baseline: TRIPPED"},
		// A change from 0 in percent is unbounded: it trips "> +10%" and has no value.
		{"failed > +10%", summaryWith(nil, 0, nil), summaryWith(nil, 6, nil), true, nil, "failed 0 → 6: the baseline is 0, so the change is unbounded: TRIPPED"},
		{"failed > +10%", summaryWith(nil, 1, nil), summaryWith(nil, 3, nil), true, f(200), "failed 1 → 3: +200.0% against the baseline: TRIPPED"},
		{"throughput > +10%", summaryWith(nil, 0, f(0)), summaryWith(nil, 0, f(12)), true, nil, "throughput 0 → 12.00: the baseline is 0"},
		{"failed > +10%", summaryWith(nil, 0, nil), summaryWith(nil, 0, nil), false, f(0), "passed"},
		// No samples on either side: the gate cannot pass.
		{"ttft.p95 > +10%", summaryWith(nil, 0, nil), summaryWith(f(200), 0, nil), true, nil, "no samples in the baseline"},
		{"ttft.p95 > +10%", summaryWith(f(200), 0, nil), summaryWith(nil, 0, nil), true, nil, "no samples in this run"},
	} {
		g, err := stats.ParseGate(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		r := compare.EvalRelative(g, c.base, c.run)
		if r.Tripped != c.tripped || !strings.Contains(r.Message, c.msgContain) {
			t.Errorf("%q: tripped %v %q, want %v and a message containing %q", c.expr, r.Tripped, r.Message, c.tripped, c.msgContain)
		}
		switch {
		case c.value == nil && r.Value != nil:
			t.Errorf("%q: value %v, want none", c.expr, *r.Value)
		case c.value != nil && (r.Value == nil || *r.Value != *c.value):
			t.Errorf("%q: value %v, want %v", c.expr, r.Value, *c.value)
		}
	}
}

// A change printed as the threshold it differs from gets more digits:
// 10.004% against +10% does not read as "+10.00%: TRIPPED".
func TestEvalRelativeChangeReadsApartFromThreshold(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		expr      string
		base, run float64
		want      string
	}{
		{"ttft.p95 > +10%", 200, 220.008, "+10.004% against the baseline: TRIPPED"},
		{"ttft.p95 < -10%", 200, 179.992, "-10.004% against the baseline: TRIPPED"},
		{"ttft.p95 > +20ms", 200, 220.004, "+20.004 ms against the baseline: TRIPPED"},
		{"ttft.p95 > +10%", 200, 220, "+10.00% against the baseline: passed"},
	} {
		g, err := stats.ParseGate(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		r := compare.EvalRelative(g, summaryWith(f(c.base), 0, nil), summaryWith(f(c.run), 0, nil))
		if !strings.HasSuffix(r.Message, c.want) {
			t.Errorf("%q %v → %v: %q, want it to end %q", c.expr, c.base, c.run, r.Message, c.want)
		}
	}
}
