package sweep

import (
	"fmt"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// The knee's thresholds (docs/sweeps.md).
const (
	// KneeLatencyRisePct is the rise of TTFT p95 or gap p99 over the
	// previous level that counts, when its noise interval is above 0.
	KneeLatencyRisePct = 25.0
	// KneeLatencyRiseMS is the least rise that counts, whatever its share.
	// A level's streams run at once and share the client's hiccups, which
	// the stream bootstrap takes for independent, so a gap p99 moving from
	// 33 to 61 ms on a loaded client can look beyond noise while no reader
	// would notice it.
	KneeLatencyRiseMS = 50.0
	// KneeThroughputGainPct is the throughput gain over the previous level
	// below which throughput did not follow the load.
	KneeThroughputGainPct = 10.0
)

// KneeRule states the rule, for the summary and the report.
const KneeRule = "the first level whose ttft p95 or gap p99 rose more than 25% and more than 50 ms over the previous level's, " +
	"with the 95% bootstrap interval of the rise (whole streams resampled, as drip compare does) above 0, " +
	"while throughput (output tokens/s) rose less than 10%"

// Knee is the level where the stream starts to suffer, and the evidence.
type Knee struct {
	Level  float64 `json:"level"`
	Reason string  `json:"reason"`
}

// kneeMetric is a latency the knee watches.
type kneeMetric struct {
	name  string
	pct   float64
	value func(stats.Metrics) *float64
	obs   func(*observations) [][]float64
}

var kneeMetrics = []kneeMetric{
	{"ttft p95", 95, func(m stats.Metrics) *float64 { return stats.TTFT.Of(m).P95 }, func(o *observations) [][]float64 { return o.ttft }},
	{"gap p99", 99, func(m stats.Metrics) *float64 { return stats.Gap.Of(m).P99 }, func(o *observations) [][]float64 { return o.gap }},
}

// judgeable says whether KneeRule can compare cur with prev. Neither was
// cut short, both have throughput (prev's above 0) and both have enough
// streams with a first token for a noise interval. FindKnee and Verdict
// share it, so "none" is only said of pairs that were looked at.
func judgeable(prev, cur *Level) bool {
	if prev.Partial || cur.Partial {
		return false
	}
	tp, tc := prev.Throughput.TokensPerS, cur.Throughput.TokensPerS
	if tp == nil || tc == nil || *tp <= 0 {
		return false
	}
	return len(prev.obs.ttft) >= stats.MinNoiseStreams && len(cur.obs.ttft) >= stats.MinNoiseStreams
}

// FindKnee applies KneeRule to levels in the order they ran. It is nil
// when no level meets it. A pair that is not judgeable is never a knee.
func FindKnee(levels []Level) *Knee {
	for i := 1; i < len(levels); i++ {
		prev, cur := &levels[i-1], &levels[i]
		if !judgeable(prev, cur) {
			continue
		}
		tp, tc := prev.Throughput.TokensPerS, cur.Throughput.TokensPerS
		gain := (*tc - *tp) / *tp * 100
		if gain >= KneeThroughputGainPct {
			continue
		}
		for _, m := range kneeMetrics {
			rise, ok := m.rise(prev, cur)
			if !ok {
				continue
			}
			why := fmt.Sprintf("at %s %s while throughput did not follow: %+.1f%% (%s → %s tok/s, under %g%%)",
				Label(cur.Kind, cur.Level), rise, gain, textfmt.FormatFloat(*tp), textfmt.FormatFloat(*tc), KneeThroughputGainPct)
			return &Knee{Level: cur.Level, Reason: why}
		}
	}
	return nil
}

// rise describes m's rise from prev to cur when it is a knee's, more than
// KneeLatencyRisePct and KneeLatencyRiseMS, with the noise interval of
// the difference above 0.
func (m kneeMetric) rise(prev, cur *Level) (string, bool) {
	a, b := m.value(prev.Metrics), m.value(cur.Metrics)
	if a == nil || b == nil || *a <= 0 {
		return "", false
	}
	pct := (*b - *a) / *a * 100
	if pct <= KneeLatencyRisePct || *b-*a <= KneeLatencyRiseMS {
		return "", false
	}
	key := fmt.Sprintf("sweep %s %g→%g", m.name, prev.Level, cur.Level)
	ci := stats.DiffInterval(m.obs(&prev.obs), m.obs(&cur.obs), m.pct, key)
	if ci == nil || ci.Lo <= 0 {
		return "", false
	}
	// The interval is above zero here, so both its ends take a plus.
	rise := textfmt.MSApart(ci.Lo, ci.Hi)
	return fmt.Sprintf("%s rose %.0f%% over %s (%s → %s; 95%% interval of the rise +%s to +%s)",
		m.name, pct, Label(prev.Kind, prev.Level), textfmt.MS(*a), textfmt.MS(*b), rise[0], rise[1]), true
}
