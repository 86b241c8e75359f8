package stats

import (
	"fmt"
	"os"
	"strings"
	"testing"
)

// The docs' client.limited states the sample count Limited needs: with
// fewer the p99 is one wake-up's bucket, and a reader who saw a p99 over
// the bound and limited false would think it a bug.
func TestDocsStateTheSamplesClientLimitedNeeds(t *testing.T) {
	for file, want := range map[string]string{
		"../docs/records.md":                    fmt.Sprintf("`limited` (the p99 reached the bound, with at least %d samples:", clientLagMinSamples),
		"../docs/schema/summary.v1.schema.json": fmt.Sprintf("limited: the p99 reached bound_ms (with at least %d samples)", clientLagMinSamples),
	} {
		b, err := os.ReadFile(file)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(string(b), want) {
			t.Errorf("%s does not say %q", file, want)
		}
	}
}
