package pipeline

import (
	"errors"
	"strings"
	"testing"
)

// A baseline's gates may be relative; a bad one is exit 2 naming --fail-if.
func TestParseBaselineGates(t *testing.T) {
	gs, err := ParseBaselineGates([]string{"ttft.p95 > +10%", "failed > 0"})
	if err != nil || len(gs) != 2 || !gs[0].Relative || gs[1].Metric != "failed" {
		t.Fatalf("gates %+v, %v", gs, err)
	}
	_, err = ParseBaselineGates([]string{"failed > 0", "nonsense"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.HasPrefix(err.Error(), `--fail-if: gate "nonsense"`) {
		t.Errorf("a bad gate: %v, want exit 2 naming --fail-if", err)
	}
}
