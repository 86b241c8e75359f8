package stats

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestParseGate(t *testing.T) {
	cases := []struct {
		expr   string
		metric string
		op     string
		value  float64
		unit   string
		rel    bool
		err    string
	}{
		{expr: "ttft.p95 > 800ms", metric: "ttft.p95", op: ">", value: 800, unit: "ms"},
		{expr: "gap.p99 >= 0.25s", metric: "gap.p99", op: ">=", value: 250, unit: "ms"},
		{expr: "itl.mean<500us", metric: "itl.mean", op: "<", value: 0.5, unit: "ms"},
		{expr: "e2e.max <= 3", metric: "e2e.max", op: "<=", value: 3, unit: "ms"},
		{expr: "failed > 0", metric: "failed", op: ">", value: 0},
		{expr: "tokens_approx_pct > 0", metric: "tokens_approx_pct", op: ">", value: 0},
		{expr: "tokens_approx_pct > 5%", metric: "tokens_approx_pct", op: ">", value: 5, unit: "%"},
		{expr: "throughput < 50", metric: "throughput", op: "<", value: 50},
		{expr: "ttft.p95 > +10%", metric: "ttft.p95", op: ">", value: 10, unit: "%", rel: true},
		{expr: "gap.p99 > +20ms", metric: "gap.p99", op: ">", value: 20, unit: "ms", rel: true},
		{expr: "tps_user.p50 < -15%", metric: "tps_user.p50", op: "<", value: -15, unit: "%", rel: true},
		{expr: "llm.ttft-p95 > 800", metric: "ttft.p95", op: ">", value: 800, unit: "ms"},
		{expr: "llm.itl-max >= 0.1s", metric: "itl.max", op: ">=", value: 100, unit: "ms"},
		{expr: "llm.user-tokens-per-sec-p50 < 20", metric: "tps_user.p50", op: "<", value: 20},
		{expr: "llm.output-tokens < 100", metric: "output_tokens_total", op: "<", value: 100},
		{expr: "llm.requests != 5", metric: "attempted", op: "!=", value: 5},
		{expr: "llm.token-count-approx-pct > 0", metric: "tokens_approx_pct", op: ">", value: 0},
		{expr: "llm.ttft-p95 > +10%", metric: "ttft.p95", op: ">", value: 10, unit: "%", rel: true},
		{expr: "llm.ttft-p42 > 1", err: "unknown llm.* name"},
		{expr: "ttft > 1ms", err: "name a statistic"},
		{expr: "ttft.p42 > 1ms", err: "unknown statistic"},
		{expr: "speed > 1", err: "unknown metric"},
		{expr: "failed > 1ms", err: "not a time"},
		{expr: "ttft.p95 > 5%", err: "relative"},
		{expr: "ttft.p95 800ms", err: "want METRIC OP VALUE"},
		{expr: "ttft.p95 > 1m", metric: "ttft.p95", op: ">", value: 60000, unit: "ms"},
		{expr: "stream.p50 > 1h", metric: "stream.p50", op: ">", value: 3600000, unit: "ms"},
		{expr: "e2e.p99 > 1m30s", metric: "e2e.p99", op: ">", value: 90000, unit: "ms"},
		{expr: "gap.max > 1500000ns", metric: "gap.max", op: ">", value: 1.5, unit: "ms"},
		{expr: "itl.p50 > 250µs", metric: "itl.p50", op: ">", value: 0.25, unit: "ms"},
		{expr: "ttft.p95 > 1e3ms", metric: "ttft.p95", op: ">", value: 1000, unit: "ms"},
		{expr: "gap.p99 > 2.5e-1s", metric: "gap.p99", op: ">", value: 250, unit: "ms"},
		{expr: "itl.p50 > 5E2 us", metric: "itl.p50", op: ">", value: 0.5, unit: "ms"},
		{expr: "ttft.p95 > +1e1%", metric: "ttft.p95", op: ">", value: 10, unit: "%", rel: true},
		{expr: "e2e.p99 > 1e400s", err: "bad value"},
		{expr: "ttft.p95 > 800 ms", metric: "ttft.p95", op: ">", value: 800, unit: "ms"},
		{expr: "ttft.p95 > -1m", metric: "ttft.p95", op: ">", value: -60000, unit: "ms", rel: true},
		{expr: "ttft.p95 > 5 fortnights", err: "ns, us (µs), ms, s, m, h"},
		{expr: "ttft_ms.p95 > 800ms", err: "unknown metric ttft_ms.p95: that is the summary JSON's key; the gate name is ttft.p95"},
		{expr: "metrics.first_byte_ms.p50 > 1s", err: "the gate name is first_byte.p50"},
		{expr: "throughput.output_tokens < 100", err: "the gate name is output_tokens_total"},
		{expr: "throughput.tokens_per_s < 100", err: "the gate name is throughput"},
		{expr: "stalls.longest_ms > 1s", err: "the gate name is stalls.longest"},
		{expr: "stalls.longest > 1m", metric: "stalls.longest", op: ">", value: 60000, unit: "ms"},
		{expr: "", err: "want METRIC OP VALUE"},
		{expr: "ttft.p95 > 800/s", err: `gate "ttft.p95 > 800/s": /s applies to the rates (throughput, tps_user.pNN); ttft.p95 is not one`},
		{expr: "llm.ttft-p95 > 800/s", err: "/s applies to the rates"},
		{expr: "failed > 3/s", err: "/s applies to the rates"},
		{expr: "gap.p99 > +10/s", err: "/s applies to the rates"},
		{expr: "throughput < 5/s", metric: "throughput", op: "<", value: 5, unit: "/s"},
		{expr: "throughput < -10/s", metric: "throughput", op: "<", value: -10, unit: "/s", rel: true},
		{expr: "tps_user.p50 < 5/s", metric: "tps_user.p50", op: "<", value: 5, unit: "/s"},
		{expr: "llm.output-tokens-per-sec < 5/s", metric: "throughput", op: "<", value: 5, unit: "/s"},
		{expr: "llm.user-tokens-per-sec-p95 < 5/s", metric: "tps_user.p95", op: "<", value: 5, unit: "/s"},
	}
	for _, c := range cases {
		g, err := ParseGate(c.expr)
		if c.err != "" {
			if err == nil || !strings.Contains(err.Error(), c.err) {
				t.Errorf("%q: err %v, want %q", c.expr, err, c.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", c.expr, err)
			continue
		}
		if g.Metric != c.metric || g.Op != c.op || g.Value != c.value || g.Unit != c.unit || g.Relative != c.rel {
			t.Errorf("%q = %+v", c.expr, g)
		}
	}
}

func TestGateEval(t *testing.T) {
	s := Summary{Metrics: Metrics{"ttft_ms": NewDist([]float64{100, 200, 300}), "gap_ms": NewDist([]float64{184.2137, 250.04})},
		Streams: Streams{Failed: 1}, Throughput: Throughput{TokensPerS: new(41.23456)}}
	for _, c := range []struct {
		expr    string
		tripped bool
		msg     string
	}{
		{"ttft.p50 > 150ms", true, "TRIPPED"},
		{"ttft.p50 > 0.3s", false, "passed"},
		{"failed > 0", true, "TRIPPED"},
		{"failed == 1", true, "TRIPPED"},
		{"gap.min > 100ms", true, "gap.min = 184 ms: TRIPPED"},
		{"gap.max > 250ms", true, "gap.max = 250.04 ms: TRIPPED"},
		{"throughput < 1", false, "throughput = 41.23: passed"},
		{"failed >= 1", true, "failed = 1: TRIPPED"},
		{"e2e.p99 > 100ms", true, "no samples"},
		{"stalls.longest > 1s", true, "no samples"},
		{"ttft.p95 > +10%", true, "baseline"},
	} {
		g, err := ParseGate(c.expr)
		if err != nil {
			t.Fatal(err)
		}
		r := g.Eval(&s)
		if r.Tripped != c.tripped || !strings.Contains(r.Message, c.msg) {
			t.Errorf("%q: tripped %v message %q, want %v containing %q", c.expr, r.Tripped, r.Message, c.tripped, c.msg)
		}
	}
}

func TestGateAliasEval(t *testing.T) {
	s := &Summary{Throughput: Throughput{OutputTokens: 120}, Streams: Streams{Attempted: 4, Incomplete: 1}}
	cases := []struct {
		expr    string
		tripped bool
	}{
		{"llm.output-tokens < 100", false},
		{"llm.output-tokens >= 120", true},
		{"llm.requests == 4", true},
		{"llm.incomplete > 0", true},
	}
	for _, c := range cases {
		g, err := ParseGate(c.expr)
		if err != nil {
			t.Fatalf("%s: %v", c.expr, err)
		}
		if r := g.Eval(s); r.Tripped != c.tripped {
			t.Errorf("%s: tripped %v, want %v (%s)", c.expr, r.Tripped, c.tripped, r.Message)
		}
	}
	if help := GateAliasHelp(); !strings.Contains(help, "llm.ttft-p95") || !strings.Contains(help, " ttft.p95 ") {
		t.Errorf("GateAliasHelp lacks the ttft alias:\n%s", help)
	}
}

// TestEveryGateNamesAKeyOfTheSummaryJSON: the JSON path --help gives for
// each gate metric (GateJSONPath) is a key of the summary's JSON holding
// the figure the gate judges.
func TestEveryGateNamesAKeyOfTheSummaryJSON(t *testing.T) {
	s := Summary{Metrics: Metrics{}, Goodput: &Goodput{Pct: new(93.0)}, TokensApproxPct: new(7.0),
		Streams:    Streams{Attempted: 11, Admitted: 10, Completed: 9, Failed: 2, Incomplete: 3, Canceled: 4, Buffered: 5},
		Throughput: Throughput{OutputTokens: 120, TokensPerS: new(41.5)},
		Stalls:     Stalls{Count: 6, MidSentence: 2, StreamsWithStall: 3, LongestMS: new(700.0)}}
	var gates []string
	for i, m := range Registry {
		s.Metrics[m.JSON] = NewDist([]float64{float64(i), float64(i) + 10})
		if m.Out&InGate != 0 {
			gates = append(gates, m.Key+".p95")
		}
	}
	for name, sc := range scalars {
		if sc.json != "" {
			gates = append(gates, name)
		}
	}
	raw, err := json.Marshal(&s)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	for _, name := range gates {
		g, err := ParseGate(name + " > 0")
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		path := GateJSONPath(g.Metric)
		var at any = doc
		for _, k := range strings.Split(path, ".") {
			obj, _ := at.(map[string]any)
			at = obj[k]
		}
		got, _ := at.(float64)
		if want := g.Lookup(&s); want == nil || got != *want {
			t.Errorf("gate %s: JSON %s holds %v, the gate judges %v", name, path, at, want)
		}
	}
}

// The statistics the gate and SLO messages list are the ones Stat knows.
func TestStatNamesAreStats(t *testing.T) {
	for _, name := range strings.Split(statNames, ", ") {
		if _, ok := (Dist{}).Stat(name); !ok {
			t.Errorf("statNames lists %q, which Stat does not know", name)
		}
	}
}
