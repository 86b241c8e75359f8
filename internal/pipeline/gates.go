package pipeline

import (
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/stats"
)

// ParseGates reads the --slo and every --fail-if of a command that
// measures without a baseline (run, watch, demo), before anything is
// sent. A relative gate is refused up front, since only compare and replay
// have a baseline to take it against. Goodput needs the SLO it counts by.
// Each error is a usage error naming its flag.
func ParseGates(failIf []string, sloExpr string) ([]stats.Gate, *stats.SLO, error) {
	var slo *stats.SLO
	if sloExpr != "" {
		var err error
		if slo, err = stats.ParseSLO(sloExpr); err != nil {
			return nil, nil, Usage("--slo: %v", err)
		}
	}
	gates, err := ParseBaselineGates(failIf)
	if err != nil {
		return nil, nil, err
	}
	for i, g := range gates {
		if g.Relative {
			return nil, nil, Usage("--fail-if %q: a signed value is relative to a baseline, and this command has none: use drip compare (or drip replay) for it, or drop the sign", sanitize.Line(failIf[i]))
		}
		if g.Metric == "goodput" && slo == nil {
			return nil, nil, Usage("--fail-if %q: goodput is the share of streams meeting --slo: add drip run's --slo, e.g. --slo 'ttft<500ms,gap.p99<250ms'", sanitize.Line(failIf[i]))
		}
	}
	return gates, slo, nil
}
