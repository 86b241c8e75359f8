package pipeline

import (
	"io"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/stats"
)

// ParseBaselineGates reads every --fail-if of a command with a baseline
// (compare, replay), so relative gates ('+10%') are allowed. An error is a
// usage error naming the flag.
func ParseBaselineGates(failIf []string) ([]stats.Gate, error) {
	var gates []stats.Gate
	for _, e := range failIf {
		g, err := stats.ParseGate(e)
		if err != nil {
			return nil, Usage("--fail-if: %v", err)
		}
		gates = append(gates, g)
	}
	return gates, nil
}

// ComparisonVerdicts prints the gates after a compare screen, which does
// not show them, with the exit the headless report would end with.
func ComparisonVerdicts(w io.Writer, c *compare.Comparison) error {
	compare.GateLines(w, c.Gates)
	return comparisonOutcome(c)
}

func comparisonOutcome(c *compare.Comparison) error {
	if c.Tripped() {
		return ErrGateTripped
	}
	return nil
}
