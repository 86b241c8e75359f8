package stats

import (
	"fmt"
	"math"
	"regexp"
	"strings"

	"github.com/driplab/drip/record"
)

// SLO is a per-stream service-level objective. Every stream is held to its
// terms, such as "ttft<500ms,gap.p99<250ms". Goodput is the share of
// streams that meet every term (--slo). AIPerf and vLLM call the rate of
// such requests goodput.
type SLO struct {
	Expr  string
	Terms []SLOTerm
}

// SLOTerm is one per-stream condition, written METRIC OP VALUE[UNIT].
type SLOTerm struct {
	Expr   string
	Metric string // ttft, ttfo, e2e, itl, tps_user, duration, tail, first_byte, gap.pNN|max|mean, stalls, output_tokens
	Op     string // < <= > >=
	Value  float64
}

var sloTermRE = regexp.MustCompile(`^\s*([a-z_0-9.]+)\s*(<=|>=|<|>)\s*([0-9.].*?)\s*$`)

// sloStreamMetrics are what one stream is judged on. The bool says the
// metric is a time (held in ms).
var sloStreamMetrics = map[string]struct {
	get  func(*record.Record) *float64
	time bool
}{
	"ttft":          {func(r *record.Record) *float64 { return r.TTFTMS }, true},
	"ttfo":          {func(r *record.Record) *float64 { return r.TTFOMS }, true},
	"e2e":           {func(r *record.Record) *float64 { return r.E2EMS }, true},
	"itl":           {func(r *record.Record) *float64 { return r.ITLMS }, true},
	"tail":          {func(r *record.Record) *float64 { return r.TailMS }, true},
	"first_byte":    {func(r *record.Record) *float64 { return r.FirstByteMS }, true},
	"duration":      {func(r *record.Record) *float64 { return new(r.DurationMS) }, true},
	"tps_user":      {func(r *record.Record) *float64 { return r.TPSUser }, false},
	"stalls":        {func(r *record.Record) *float64 { return new(float64(len(r.Stalls))) }, false},
	"output_tokens": {func(r *record.Record) *float64 { return new(float64(r.OutputTokens)) }, false},
}

// ParseSLO parses a comma-separated list of per-stream terms, e.g.
// "ttft<500ms,gap.p99<250ms,tps_user>20".
func ParseSLO(expr string) (*SLO, error) {
	s := &SLO{Expr: strings.TrimSpace(expr)}
	if s.Expr == "" {
		return nil, fmt.Errorf("empty SLO: want terms like 'ttft<500ms,gap.p99<250ms'")
	}
	for _, part := range strings.Split(s.Expr, ",") {
		t, err := parseSLOTerm(part)
		if err != nil {
			return nil, err
		}
		s.Terms = append(s.Terms, t)
	}
	return s, nil
}

func parseSLOTerm(part string) (SLOTerm, error) {
	m := sloTermRE.FindStringSubmatch(part)
	if m == nil {
		return SLOTerm{}, fmt.Errorf("SLO term %q: want METRIC OP VALUE[UNIT] with < <= > >=, e.g. 'ttft<500ms' or 'gap.p99<250ms' (time units: %s)", strings.TrimSpace(part), TimeUnits)
	}
	t := SLOTerm{Expr: strings.TrimSpace(part), Metric: m[1], Op: m[2]}
	a, err := parseAmount(m[3])
	if err != nil {
		return SLOTerm{}, fmt.Errorf("SLO term %q: %w", t.Expr, err)
	}
	isTime, err := sloMetricIsTime(t)
	if err != nil {
		return SLOTerm{}, err
	}
	switch {
	case a.unit == "%":
		return SLOTerm{}, fmt.Errorf("SLO term %q: a term holds each stream to a figure, not a share: drop the %%", t.Expr)
	case a.unit == "/s" && t.Metric != "tps_user":
		return SLOTerm{}, fmt.Errorf("SLO term %q: /s applies to tps_user", t.Expr)
	case a.unit == "ms" && !isTime:
		return SLOTerm{}, fmt.Errorf("SLO term %q: %s is not a time", t.Expr, t.Metric)
	}
	t.Value = a.v
	return t, nil
}

// sloMetricIsTime checks that a term names a per-stream metric and says
// whether it holds milliseconds. A record's JSON key is refused with the
// term's name.
func sloMetricIsTime(t SLOTerm) (bool, error) {
	base, stat, hasStat := strings.Cut(t.Metric, ".")
	switch {
	case base == "gap" && hasStat:
		if _, ok := (Dist{}).Stat(stat); !ok {
			return false, fmt.Errorf("SLO term %q: unknown gap statistic %q (%s)", t.Expr, stat, statNames)
		}
		return true, nil
	case base == "gap":
		return false, fmt.Errorf("SLO term %q: gap is a distribution within a stream; name a statistic, e.g. gap.p99 or gap.max", t.Expr)
	case sloStreamMetrics[t.Metric].get != nil:
		return sloStreamMetrics[t.Metric].time, nil
	}
	if name := sloNameHint(t.Metric); name != "" {
		return false, fmt.Errorf("SLO term %q: unknown per-stream metric %s: the SLO name is %s (a term holds each stream to its own figure: gap alone takes a statistic)", t.Expr, t.Metric, name)
	}
	return false, fmt.Errorf("SLO term %q: unknown per-stream metric %q (ttft, ttfo, e2e, itl, tail, first_byte, duration, tps_user, stalls, output_tokens, gap.pNN)", t.Expr, t.Metric)
}

// sloNameHint is the SLO name of a per-stream metric given by its JSON
// key or gate name (ttft_ms, ttft_ms.p95, ttft.p95, gap_ms.p99). It drops
// the statistic except for gap's. It is "" when no SLO term takes it.
func sloNameHint(name string) string {
	base, stat, hasStat := strings.Cut(strings.TrimPrefix(name, "metrics."), ".")
	for _, m := range Registry {
		if m.JSON != base && m.Key != base {
			continue
		}
		_, known := (Dist{}).Stat(stat)
		switch {
		case m.Key == "gap" && hasStat && known:
			return "gap." + stat
		case m.Key != "gap" && sloStreamMetrics[m.Key].get != nil:
			return m.Key
		}
		return ""
	}
	return ""
}

// Of is the term's metric for one stream. It is nil when the stream has
// none (a failed stream's TTFT, the gaps of a stream with one content
// frame).
func (t SLOTerm) Of(r *record.Record) *float64 {
	if base, stat, ok := strings.Cut(t.Metric, "."); ok && base == "gap" {
		v, _ := NewDist(r.Gaps()).Stat(stat)
		return v
	}
	return sloStreamMetrics[t.Metric].get(r)
}

// Met reports whether a stream meets every term. A stream that is not
// complete, or lacks a term's value, does not, because a missing number
// never counts as good.
func (s *SLO) Met(r *record.Record) bool {
	if r.Status != record.StatusComplete {
		return false
	}
	for _, t := range s.Terms {
		v := t.Of(r)
		if v == nil || math.IsNaN(*v) || !Holds(*v, t.Op, t.Value) {
			return false
		}
	}
	return true
}

// Goodput is the share of a run's streams that met the SLO.
type Goodput struct {
	SLO        string   `json:"slo"`
	Met        int      `json:"met"`
	Of         int      `json:"of"`  // attempted streams, failed and not-admitted ones included
	Pct        *float64 `json:"pct"` // null with no attempted stream
	PerS       *float64 `json:"good_streams_per_s"`
	Definition string   `json:"definition"`
}

const goodputDefinition = "streams that completed and met every SLO term / attempted streams (failed, incomplete, canceled and not-admitted count against it); good_streams_per_s over the run window"
