package report

import (
	"bytes"
	"encoding/json"
	"maps"
	"slices"

	"github.com/driplab/drip/stats"
)

// Tools --json --names knows are the tools whose field names a summary can
// carry beside its own (docs/metrics.md has the table).
const (
	NamesVLLM   = "vllm"
	NamesAIPerf = "aiperf"
)

// ToolNames is the summary's figures under another tool's field names:
// vLLM bench serve's result keys (mean_ttft_ms, p99_itl_ms, …) or the
// metric blocks of AIPerf's profile_export_aiperf.json
// (time_to_first_token: {unit, avg, p50, …}). Only figures drip has are
// given, and an undefined one is null, never 0.
func ToolNames(tool string, s *stats.Summary) map[string]any {
	switch tool {
	case NamesVLLM:
		return vllmNames(s)
	case NamesAIPerf:
		return aiperfNames(s)
	}
	return nil
}

// vllmMetrics pairs vLLM's metric names with drip's distributions. vLLM's
// itl is every gap between chunks (drip's gap), and its tpot is drip's itl.
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
	{"input_sequence_length", "tokens", stats.InputTokens},
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

// NamedJSON is the summary as one JSON object with another tool's keys
// (ToolNames) at its top level, as that tool writes them, so a script
// written for it (jq .median_ttft_ms) reads drip's figures unchanged.
// drip's own keys keep their order and come first. A key both have
// (AIPerf's goodput) is one object holding both's fields, drip's winning
// a field both name.
func NamedJSON(s *stats.Summary, tool string) ([]byte, error) {
	b, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	keys, vals, err := topLevel(b)
	if err != nil {
		return nil, err
	}
	named := ToolNames(tool, s)
	for _, k := range slices.Sorted(maps.Keys(named)) {
		v, err := json.Marshal(named[k])
		if err != nil {
			return nil, err
		}
		i := slices.Index(keys, k)
		if i < 0 {
			keys, vals = append(keys, k), append(vals, v)
			continue
		}
		vals[i] = joinObjects(vals[i], v)
	}
	var out bytes.Buffer
	out.WriteByte('{')
	for i, k := range keys {
		if i > 0 {
			out.WriteByte(',')
		}
		kb, _ := json.Marshal(k)
		out.Write(kb)
		out.WriteByte(':')
		out.Write(vals[i])
	}
	out.WriteByte('}')
	return out.Bytes(), nil
}

// topLevel splits a JSON object into its keys and raw values, in order.
func topLevel(b []byte) (keys []string, vals []json.RawMessage, err error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	if _, err := dec.Token(); err != nil { // the object's {
		return nil, nil, err
	}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, nil, err
		}
		var v json.RawMessage
		if err := dec.Decode(&v); err != nil {
			return nil, nil, err
		}
		keys, vals = append(keys, t.(string)), append(vals, v)
	}
	return keys, vals, nil
}

// joinObjects adds to the JSON object a the fields of b it lacks. When
// either is no object, a stays as it is.
func joinObjects(a, b json.RawMessage) json.RawMessage {
	akeys, _, err1 := topLevel(a)
	bkeys, bvals, err2 := topLevel(b)
	a = bytes.TrimSpace(a)
	if err1 != nil || err2 != nil || len(a) < 2 || a[0] != '{' {
		return a
	}
	out := append([]byte(nil), a[:len(a)-1]...)
	for i, k := range bkeys {
		if slices.Contains(akeys, k) {
			continue
		}
		if len(out) > 1 {
			out = append(out, ',')
		}
		kb, _ := json.Marshal(k)
		out = append(append(append(out, kb...), ':'), bvals[i]...)
	}
	return append(out, '}')
}
