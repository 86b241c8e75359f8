package stats

import (
	"fmt"
	"maps"
	"math"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driplab/drip/internal/textfmt/numfmt"
)

// Gate is one --fail-if condition, written METRIC OP VALUE[UNIT]. A value
// with a leading + or - is relative to a baseline run (drip compare).
// Then "+10%" is a ratio and "+20ms" an absolute change.
type Gate struct {
	Expr     string
	Metric   string // e.g. "ttft.p95", "failed", "throughput"
	Op       string // > >= < <= == !=
	Value    float64
	Unit     string // "ms", "%", "" — time values are held in ms
	Relative bool
}

// GateResult is a gate's verdict.
type GateResult struct {
	Expr    string   `json:"expr"`
	Value   *float64 `json:"value"`
	Tripped bool     `json:"tripped"`
	Message string   `json:"message"`
}

var gateRE = regexp.MustCompile(`^\s*([a-z_0-9.-]+)\s*(>=|<=|==|!=|>|<)\s*([+-]?)([0-9.].*?)\s*$`)

// gateDist is the distribution metric a gate's base name means.
func gateDist(base string) (Metric, bool) {
	m, ok := MetricByKey(base)
	return m, ok && m.Out&InGate != 0
}

// IsCount says whether the gate's metric is a whole count, printed
// without decimals (6, not 6.00).
func (g Gate) IsCount() bool { return scalars[g.Metric].count }

// A scalar is a count or single figure a gate can name, with the path of
// its value in the summary's JSON ("" for a figure computed from others)
// and its unit, as a Metric's ("ms" for a time, "tok/s" for a rate).
type scalar struct {
	json  string
	unit  string
	count bool
	get   func(*Summary) *float64
}

// countOf is the scalar of a whole count.
func countOf(json string, n func(*Summary) int) scalar {
	return scalar{json: json, count: true, get: func(s *Summary) *float64 { return new(float64(n(s))) }}
}

// scalars are the counts and single figures a gate can name.
var scalars = map[string]scalar{
	"attempted":           countOf("streams.attempted", func(s *Summary) int { return s.Streams.Attempted }),
	"admitted":            countOf("streams.admitted", func(s *Summary) int { return s.Streams.Admitted }),
	"completed":           countOf("streams.completed", func(s *Summary) int { return s.Streams.Completed }),
	"failed":              countOf("streams.failed", func(s *Summary) int { return s.Streams.Failed }),
	"failed_pct":          {get: failedPct},
	"incomplete":          countOf("streams.incomplete", func(s *Summary) int { return s.Streams.Incomplete }),
	"canceled":            countOf("streams.canceled", func(s *Summary) int { return s.Streams.Canceled }),
	"buffered":            countOf("streams.buffered", func(s *Summary) int { return s.Streams.Buffered }),
	"throughput":          {json: "throughput.tokens_per_s", unit: "tok/s", get: func(s *Summary) *float64 { return s.Throughput.TokensPerS }},
	"output_tokens_total": countOf("throughput.output_tokens", func(s *Summary) int { return s.Throughput.OutputTokens }),
	"tokens_approx_pct":   {json: "tokens_approx_pct", get: func(s *Summary) *float64 { return s.TokensApproxPct }},
	"stalls":              countOf("stalls.count", func(s *Summary) int { return s.Stalls.Count }),
	"stalls.mid_sentence": countOf("stalls.mid_sentence", func(s *Summary) int { return s.Stalls.MidSentence }),
	"stalls.longest":      {json: "stalls.longest_ms", unit: "ms", get: func(s *Summary) *float64 { return s.Stalls.LongestMS }},
	"streams_with_stall":  countOf("stalls.streams_with_stall", func(s *Summary) int { return s.Stalls.StreamsWithStall }),
	"goodput": {json: "goodput.pct", get: func(s *Summary) *float64 { // % of streams meeting --slo
		if s.Goodput == nil {
			return nil
		}
		return s.Goodput.Pct
	}},
}

// failedPct is the share of attempted streams that failed. It is nil when
// none was attempted.
func failedPct(s *Summary) *float64 {
	if s.Streams.Attempted == 0 {
		return nil
	}
	return new(100 * float64(s.Streams.Failed) / float64(s.Streams.Attempted))
}

// ParseGate parses a gate expression such as "ttft.p95 > 800ms".
func ParseGate(expr string) (Gate, error) {
	m := gateRE.FindStringSubmatch(expr)
	if m == nil {
		return Gate{}, fmt.Errorf("gate %q: want METRIC OP VALUE[UNIT], e.g. 'ttft.p95 > 800ms' or 'failed > 0' (time units: %s)", expr, TimeUnits)
	}
	g := Gate{Expr: strings.TrimSpace(expr), Metric: m[1], Op: m[2], Relative: m[3] != ""}
	if strings.HasPrefix(g.Metric, "llm.") {
		name, ok := gateAliases[g.Metric]
		if !ok {
			return Gate{}, fmt.Errorf("gate %q: unknown llm.* name %q (known: %s)", expr, g.Metric, strings.Join(slices.Sorted(maps.Keys(gateAliases)), ", "))
		}
		g.Metric = name
	}
	a, err := parseAmount(m[4])
	if err != nil {
		return Gate{}, fmt.Errorf("gate %q: %w", expr, err)
	}
	if m[3] == "-" {
		a.v = -a.v
	}
	unit, err := gateMetricUnit(expr, g.Metric)
	if err != nil {
		return Gate{}, err
	}
	if g.Value, g.Unit, err = gateValue(expr, &g, a, unit); err != nil {
		return Gate{}, err
	}
	return g, nil
}

// gateMetricUnit checks that a gate names a known metric (a distribution
// with a statistic, or a single figure) and returns its unit. The unit is
// "ms" for a time and "tok/s" for a rate. A summary JSON key is refused
// with the gate name.
func gateMetricUnit(expr, metric string) (string, error) {
	base, stat, hasStat := strings.Cut(metric, ".")
	if dm, isDist := gateDist(base); isDist {
		if !hasStat {
			return "", fmt.Errorf("gate %q: %s is a distribution; name a statistic, e.g. %s.p95 (%s)", expr, base, base, statNames)
		}
		if _, ok := (Dist{}).Stat(stat); !ok {
			return "", fmt.Errorf("gate %q: unknown statistic %q (%s)", expr, stat, statNames)
		}
		return dm.Unit, nil
	}
	if scalars[metric].get == nil {
		if name := jsonNameHint(metric); name != "" {
			return "", fmt.Errorf("gate %q: unknown metric %s: that is the summary JSON's key; the gate name is %s", expr, metric, name)
		}
		return "", fmt.Errorf("gate %q: unknown metric %q (known: %s)", expr, metric, gateMetricNames())
	}
	return scalars[metric].unit, nil
}

// gateValue returns the gate's value in the metric's unit (times in ms)
// and that unit. It refuses a time unit on a figure that is no time, and
// /s on one that is no rate. A bare number on a time is milliseconds. A
// bare change of a time is refused, because "+10" could mean +10% as well
// as +10ms.
func gateValue(expr string, g *Gate, a amount, unit string) (float64, string, error) {
	isTime := unit == "ms"
	switch {
	case a.unit == "/s" && unit != "tok/s":
		return 0, "", fmt.Errorf("gate %q: /s applies to the rates (throughput, tps_user.pNN); %s is not one", expr, g.Metric)
	case a.unit == "" && isTime && g.Relative:
		return 0, "", fmt.Errorf("gate %q: a change of a time takes a unit: %+g%% (of the baseline) or %+gms", expr, a.v, a.v)
	case a.unit == "ms" && !isTime:
		return 0, "", fmt.Errorf("gate %q: %s is not a time", expr, g.Metric)
	case a.unit == "%" && !g.Relative && !strings.HasSuffix(g.Metric, "_pct") && g.Metric != "goodput":
		return 0, "", fmt.Errorf("gate %q: %% applies to relative gates (+10%%) and the shares (failed_pct, tokens_approx_pct, goodput)", expr)
	case a.unit == "" && isTime:
		return a.v, "ms", nil
	}
	return a.v, a.unit, nil
}

// gateAliases are the llm.* gate names of the recorded-traffic tools
// people already gate with, by the drip metric each means. Their bare
// numbers are milliseconds, as drip's own time gates are.
var gateAliases = map[string]string{
	"llm.ttft-p50": "ttft.p50", "llm.ttft-p95": "ttft.p95", "llm.ttft-max": "ttft.max",
	"llm.e2e-p50": "e2e.p50", "llm.e2e-p95": "e2e.p95", "llm.e2e-max": "e2e.max",
	"llm.itl-p50": "itl.p50", "llm.itl-p95": "itl.p95", "llm.itl-max": "itl.max",
	"llm.user-tokens-per-sec-p50": "tps_user.p50", "llm.user-tokens-per-sec-p95": "tps_user.p95",
	"llm.output-tokens-per-sec":  "throughput",
	"llm.output-tokens":          "output_tokens_total",
	"llm.requests":               "attempted",
	"llm.incomplete":             "incomplete",
	"llm.token-count-approx-pct": "tokens_approx_pct",
}

// GateAliasHelp lists the llm.* gate names with the drip metric each
// means and where the summary's JSON holds it, one per line, for --help.
func GateAliasHelp() string {
	var b strings.Builder
	fmt.Fprintf(&b, "  %-27s %-20s%s\n", "llm.* name", "drip gate", "summary JSON")
	for _, k := range slices.Sorted(maps.Keys(gateAliases)) {
		fmt.Fprintf(&b, "  %-27s %-20s%s\n", k, gateAliases[k], GateJSONPath(gateAliases[k]))
	}
	return b.String()
}

// GateJSONPath is where the summary's JSON holds a gate metric's value,
// such as metrics.ttft_ms.p95 for ttft.p95 and throughput.output_tokens
// for output_tokens_total. For a figure computed from others it says what
// from.
func GateJSONPath(metric string) string {
	if sc := scalars[metric]; sc.get != nil {
		if sc.json == "" {
			return "(computed: 100 × streams.failed / streams.attempted)"
		}
		return sc.json
	}
	base, stat, _ := strings.Cut(metric, ".")
	m, _ := gateDist(base)
	return "metrics." + m.JSON + "." + stat
}

func gateMetricNames() string {
	var names []string
	for _, m := range Registry {
		if m.Out&InGate != 0 {
			names = append(names, m.Key+".pNN")
		}
	}
	for k := range scalars {
		names = append(names, k)
	}
	slices.Sort(names)
	return strings.Join(names, ", ")
}

// Lookup returns the value the gate's metric has in s (nil if undefined).
func (g Gate) Lookup(s *Summary) *float64 {
	if sc := scalars[g.Metric]; sc.get != nil {
		return sc.get(s)
	}
	base, stat, _ := strings.Cut(g.Metric, ".")
	m, _ := gateDist(base)
	v, _ := s.Metrics[m.JSON].Stat(stat)
	return v
}

// Eval judges an absolute gate against a summary. A gate on a metric with
// no samples trips, so a missing number never passes silently.
func (g Gate) Eval(s *Summary) GateResult {
	r := GateResult{Expr: g.Expr}
	if g.Relative {
		r.Tripped, r.Message = true, "relative gate needs a baseline: use it with drip compare"
		return r
	}
	v := g.Lookup(s)
	if g.Metric == "goodput" && s.Goodput == nil {
		r.Tripped, r.Message = true, "goodput needs --slo (the per-stream terms it counts): the gate cannot pass"
		return r
	}
	if v == nil || math.IsNaN(*v) {
		r.Tripped = true
		r.Message = fmt.Sprintf("%s has no samples: the gate cannot pass", g.Metric)
		return r
	}
	r.Value = v
	r.Tripped = Holds(*v, g.Op, g.Value)
	var fig string
	if g.Unit == "ms" {
		fig = MSApartFrom(*v, g.Value)
	} else {
		fig = gateFigure(*v, g.Value) + g.Unit
	}
	r.Message = fmt.Sprintf("%s = %s: %s", g.Metric, fig, Verdict(r.Tripped))
	return r
}

// Verdict is the word a gate message ends with.
func Verdict(tripped bool) string {
	if tripped {
		return "TRIPPED"
	}
	return "passed"
}

// gateFigure prints a gate's figure that is no time as the report does,
// a whole figure without decimals, apart from the threshold.
func gateFigure(v, threshold float64) string {
	f := numfmt.Float(v)
	if v == math.Trunc(v) && math.Abs(v) < 1e15 {
		f = strconv.FormatFloat(v, 'f', 0, 64)
	}
	return ApartFrom(f, v, threshold)
}

// ApartFrom is f, a gate's figure for v, or v with more digits where f
// would read as the threshold while v differs from it. It prints 250.04
// against 250, not 250.0, and a change of +10.004% against +10%, not
// +10.00%.
func ApartFrom(f string, v, threshold float64) string {
	if back, _ := strconv.ParseFloat(f, 64); back != threshold || v == threshold {
		return f
	}
	more := strconv.FormatFloat(v, 'g', 6, 64)
	if strings.HasPrefix(f, "+") {
		return "+" + more
	}
	return more
}

// MSApartFrom prints a gate's duration v in ms as every report prints one
// (numfmt.MSApart). Where that would read as the threshold while v
// differs from it, v gets more digits: 700.04 ms against 700ms, not
// 700 ms.
func MSApartFrom(v, threshold float64) string { return numfmt.MSApart(v, threshold)[0] }

// IsTime says whether the gate's metric is a time, held in ms whatever
// unit the gate's threshold was written in.
func (g Gate) IsTime() bool {
	unit, _ := gateMetricUnit(g.Expr, g.Metric)
	return unit == "ms"
}

// Holds reports whether a op b holds for a gate operator (">", "<=", …).
func Holds(a float64, op string, b float64) bool {
	switch op {
	case ">":
		return a > b
	case ">=":
		return a >= b
	case "<":
		return a < b
	case "<=":
		return a <= b
	case "==":
		return a == b
	case "!=":
		return a != b
	}
	return false
}
