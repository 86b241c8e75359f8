package report

import (
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/stats"
)

func fig(v float64) *float64 { return &v }

// namesSummary has a distinct figure in every place ToolNames reads.
func namesSummary() *stats.Summary {
	d := func(base float64) stats.Dist {
		return stats.Dist{N: 4, Min: fig(base), Mean: fig(base + 1), P50: fig(base + 2), P90: fig(base + 3), P95: fig(base + 4), P99: fig(base + 5), Max: fig(base + 6)}
	}
	return &stats.Summary{
		Streams:    stats.Streams{Completed: 4, Failed: 1},
		Metrics:    stats.Metrics{"ttft_ms": d(100), "itl_ms": d(200), "gap_ms": d(300), "e2e_ms": d(400), "tps_user": d(500), "output_tokens": d(600)},
		Throughput: stats.Throughput{OutputTokens: 77, TokensPerS: fig(12.5), StreamsPerS: fig(0.5)},
		Goodput:    &stats.Goodput{PerS: fig(0.25)},
	}
}

// docNames is every `name` in the first column of the table under the
// docs/metrics.md paragraph that starts with prefix.
func docNames(t *testing.T, prefix string) []string {
	t.Helper()
	doc, err := os.ReadFile("../../docs/metrics.md")
	if err != nil {
		t.Fatal(err)
	}
	_, rest, ok := strings.Cut(string(doc), "\n"+prefix)
	if !ok {
		t.Fatalf("docs/metrics.md has no paragraph starting %q", prefix)
	}
	var names []string
	inTable := false
	for line := range strings.Lines(rest) {
		switch {
		case strings.HasPrefix(line, "|"):
			inTable = true
			first := strings.SplitN(line, "|", 3)[1]
			for _, m := range regexp.MustCompile("`([a-z0-9_…]+)`").FindAllStringSubmatch(first, -1) {
				names = append(names, m[1])
			}
		case inTable:
			return names
		}
	}
	return names
}

func TestToolNamesAreTheDocumentedOnes(t *testing.T) {
	s := namesSummary()
	v := ToolNames(NamesVLLM, s)
	documented := docNames(t, "`--names vllm`:")
	for key := range v {
		_, metric, _ := strings.Cut(key, "_")
		if !slices.Contains(documented, key) && !slices.Contains(documented, "…_"+metric) {
			t.Errorf("--names vllm gives %q, which docs/metrics.md's vLLM table does not name", key)
		}
	}
	for _, key := range documented {
		if _, ok := v[key]; !ok && !strings.HasPrefix(key, "…") {
			t.Errorf("docs/metrics.md names vLLM's %q, which --names vllm does not give", key)
		}
	}
	// The crossing the table warns of: vLLM's tpot is drip's itl, its itl drip's gap.
	for key, want := range map[string]float64{"mean_ttft_ms": 101, "median_tpot_ms": 202, "p99_itl_ms": 305, "p90_e2el_ms": 403, "request_goodput": 0.25, "output_throughput": 12.5} {
		if got, ok := v[key].(*float64); !ok || got == nil || *got != want {
			t.Errorf("--names vllm %s = %v, want %v", key, v[key], want)
		}
	}

	a := ToolNames(NamesAIPerf, s)
	documented = docNames(t, "`--names aiperf`:")
	if got := slices.Sorted(maps.Keys(a)); !slices.Equal(got, slices.Sorted(slices.Values(documented))) {
		t.Errorf("--names aiperf gives %v; docs/metrics.md's AIPerf table names %v", got, documented)
	}
	if st := a["inter_token_latency"].(aiperfStat); *st.P99 != 205 || st.Unit != "ms" || *st.Count != 4 {
		t.Errorf("aiperf inter_token_latency = %+v, want drip's itl_ms (p99 205, n 4) in ms", st)
	}
}

func TestToolNamesKeepUndefinedFiguresNull(t *testing.T) {
	s := &stats.Summary{Metrics: stats.Metrics{}}
	if v := ToolNames(NamesVLLM, s); v["mean_itl_ms"].(*float64) != nil || v["output_throughput"].(*float64) != nil {
		t.Errorf("no streams: mean_itl_ms %v, output_throughput %v; want null", v["mean_itl_ms"], v["output_throughput"])
	}
	if _, ok := ToolNames(NamesAIPerf, s)["goodput"]; ok {
		t.Error("aiperf goodput given without --slo")
	}
}

// NamedJSON writes drip's keys first, in their order, then the tool's at
// the top level; AIPerf's goodput block joins drip's goodput object.
func TestNamedJSONPutsTheToolsKeysAtTheTop(t *testing.T) {
	t.Parallel()
	s := namesSummary()
	s.Goodput.SLO = "ttft<1s"
	b, err := NamedJSON(s, NamesAIPerf)
	if err != nil {
		t.Fatal(err)
	}
	var top map[string]json.RawMessage
	if err := json.Unmarshal(b, &top); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	var goodput map[string]any
	json.Unmarshal(top["goodput"], &goodput)
	if goodput["slo"] != "ttft<1s" || goodput["avg"] != 0.25 || goodput["unit"] != "requests/sec" {
		t.Errorf("goodput = %v, want drip's slo beside AIPerf's unit and avg", goodput)
	}
	if _, ok := top["time_to_first_token"]; !ok || !strings.HasPrefix(string(b), `{"v":`) {
		t.Errorf("want drip's v first and time_to_first_token at the top:\n%.300s", b)
	}
}
