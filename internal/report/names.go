package report

import (
	"github.com/driplab/drip/stats"
)

// Tools --json --names knows: the tools whose field names a summary can
// carry beside its own (docs/metrics.md has the table).
const (
	NamesVLLM   = "vllm"
	NamesAIPerf = "aiperf"
)

// ToolNames is the summary's figures under another tool's field names:
// vLLM bench serve's result keys (mean_ttft_ms, p99_itl_ms, …) or the
// metric blocks of AIPerf's profile_export_aiperf.json
// (time_to_first_token: {unit, avg, p50, …}). Only figures drip has are
// given; an undefined one is null, never 0.
func ToolNames(tool string, s *stats.Summary) map[string]any {
	switch tool {
	case NamesVLLM:
		return vllmNames(s)
	case NamesAIPerf:
		return aiperfNames(s)
	}
	return nil
}

// vllmMetrics pairs vLLM's metric names with drip's distributions: vLLM's
// itl is every gap between chunks (drip's gap), its tpot drip's itl.
var vllmMetrics = []struct {
	vllm string
	drip *stats.Metric
}{
	{"ttft", stats.TTFT}, {"tpot", stats.ITL}, {"itl", stats.Gap}, {"e2el", stats.E2E},
}

func vllmNames(s *stats.Summary) map[string]any {
	out := map[string]any{
		"completed":           s.Streams.Completed,
		"failed":              s.Streams.Failed,
		"total_output_tokens": s.Throughput.OutputTokens,
		"request_throughput":  s.Throughput.StreamsPerS,
		"output_throughput":   s.Throughput.TokensPerS,
	}
	if s.Goodput != nil {
		out["request_goodput"] = s.Goodput.PerS
	}
	for _, m := range vllmMetrics {
		d := m.drip.Of(s.Metrics)
		out["mean_"+m.vllm+"_ms"] = d.Mean
		out["median_"+m.vllm+"_ms"] = d.P50
		out["p90_"+m.vllm+"_ms"] = d.P90
		out["p95_"+m.vllm+"_ms"] = d.P95
		out["p99_"+m.vllm+"_ms"] = d.P99
	}
	return out
}

// aiperfMetrics pairs AIPerf's metric tags and units with drip's
// distributions.
var aiperfMetrics = []struct {
	aiperf, unit string
	drip         *stats.Metric
}{
	{"time_to_first_token", "ms", stats.TTFT},
	{"inter_token_latency", "ms", stats.ITL},
	{"request_latency", "ms", stats.E2E},
	{"output_token_throughput_per_user", "tokens/sec/user", stats.TPSUser},
	{"output_sequence_length", "tokens", stats.OutputTokens},
}

// aiperfStat is one metric block of AIPerf's JSON export.
type aiperfStat struct {
	Unit  string   `json:"unit"`
	Avg   *float64 `json:"avg"`
	Min   *float64 `json:"min,omitempty"`
	Max   *float64 `json:"max,omitempty"`
	P50   *float64 `json:"p50,omitempty"`
	P90   *float64 `json:"p90,omitempty"`
	P95   *float64 `json:"p95,omitempty"`
	P99   *float64 `json:"p99,omitempty"`
	Count *int     `json:"count,omitempty"`
}

func aiperfNames(s *stats.Summary) map[string]any {
	out := map[string]any{
		"output_token_throughput": aiperfStat{Unit: "tokens/sec", Avg: s.Throughput.TokensPerS},
		"request_throughput":      aiperfStat{Unit: "requests/sec", Avg: s.Throughput.StreamsPerS},
	}
	if s.Goodput != nil {
		out["goodput"] = aiperfStat{Unit: "requests/sec", Avg: s.Goodput.PerS}
	}
	for _, m := range aiperfMetrics {
		d := m.drip.Of(s.Metrics)
		n := d.N
		out[m.aiperf] = aiperfStat{Unit: m.unit, Avg: d.Mean, Min: d.Min, Max: d.Max, P50: d.P50, P90: d.P90, P95: d.P95, P99: d.P99, Count: &n}
	}
	return out
}
