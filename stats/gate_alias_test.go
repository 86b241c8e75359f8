package stats

import (
	"regexp"
	"testing"
)

// TestEveryGateAliasOfTheIssue: every llm.* name issue #12 lists parses to
// the drip metric it means, a bare number on a time is milliseconds, and
// --help's list (GateAliasHelp) shows the name with its metric.
func TestEveryGateAliasOfTheIssue(t *testing.T) {
	help := GateAliasHelp()
	for _, c := range []struct {
		alias, metric string
		isTime        bool
	}{
		{"llm.ttft-p50", "ttft.p50", true}, {"llm.ttft-p95", "ttft.p95", true}, {"llm.ttft-max", "ttft.max", true},
		{"llm.e2e-p50", "e2e.p50", true}, {"llm.e2e-p95", "e2e.p95", true}, {"llm.e2e-max", "e2e.max", true},
		{"llm.itl-p50", "itl.p50", true}, {"llm.itl-p95", "itl.p95", true}, {"llm.itl-max", "itl.max", true},
		{"llm.user-tokens-per-sec-p50", "tps_user.p50", false}, {"llm.user-tokens-per-sec-p95", "tps_user.p95", false},
		{"llm.output-tokens-per-sec", "throughput", false},
		{"llm.output-tokens", "output_tokens_total", false},
		{"llm.requests", "attempted", false},
		{"llm.incomplete", "incomplete", false},
		{"llm.token-count-approx-pct", "tokens_approx_pct", false},
	} {
		g, err := ParseGate(c.alias + " > 250")
		if err != nil {
			t.Errorf("%s: %v", c.alias, err)
			continue
		}
		wantUnit := map[bool]string{true: "ms", false: ""}[c.isTime]
		if g.Metric != c.metric || g.Value != 250 || g.Unit != wantUnit {
			t.Errorf("%s > 250: metric %q, value %v %q; want %q, 250 %q", c.alias, g.Metric, g.Value, g.Unit, c.metric, wantUnit)
		}
		line := regexp.MustCompile(`(?m)^\s+` + regexp.QuoteMeta(c.alias) + `\s+` + regexp.QuoteMeta(c.metric) + `\s+` + regexp.QuoteMeta(GateJSONPath(c.metric)) + `$`)
		if !line.MatchString(help) {
			t.Errorf("--help's alias list lacks %s = %s:\n%s", c.alias, c.metric, help)
		}
	}
}
