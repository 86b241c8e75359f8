package fleet_test

import (
	"encoding/json"
	"testing"

	"github.com/driplab/drip/internal/fleet"
	"github.com/driplab/drip/stats"
)

// FuzzMergeSummaries: whatever a --summaries file holds, drip merge
// either refuses it (ReadSummary, MergeSummaries) or merges it with
// itself, without a panic, to a summary that JSON holds (no count that
// wrapped, no infinite sum or bucket) and that reads back as one. Seeds in
// testdata/fuzz/FuzzMergeSummaries.
func FuzzMergeSummaries(f *testing.F) {
	// Small by hand: the fuzzer minimises each new input, and a whole run's
	// summary (tens of KB) kept its workers minimising for the minute.
	for _, s := range []string{
		`{"v":1,"workload":{"target":"http://x"},"streams":{"admitted":2,"with_token_count":2},"tokens_approx_pct":50,` +
			`"histograms":{"metrics":{"ttft_ms":{"n":2,"sum":3,"min":1,"max":2,"zero":0,"offset":10,"counts":[1,1]}}}}`,
		`{"v":1,"workload":{"target":"http://x"},"histograms":{"metrics":{"gap_ms":{"n":1,"sum":1e12,"min":1e12,"max":1e12,"offset":1048576,"counts":[1]}}}}`,
		`{"v":1,"workload":{"target":"http://x"},"histograms":{"metrics":{"gap_ms":{"n":1,"sum":1e308,"min":1,"max":1e308,"offset":4000,"counts":[1]}}}}`,
		`{"v":1,"workload":{"target":"http://x"},"streams":{"completed":9223372036854775807},"histograms":{"metrics":{"e2e_ms":{"n":1,"sum":1,"min":1,"max":1,"zero":18446744073709551615,"counts":[2]}}}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, file []byte) {
		s, err := fleet.ReadSummary(file, "a.json")
		if err != nil {
			return
		}
		m, err := fleet.MergeSummaries([]stats.Summary{s, s}, []string{"a.json", "b.json"})
		if err != nil {
			return
		}
		out, err := json.Marshal(m)
		if err != nil {
			t.Fatalf("a merged summary JSON cannot hold: %v", err)
		}
		if _, err := fleet.ReadSummary(out, "merged"); err != nil {
			t.Fatalf("the merged summary does not read back: %v", err)
		}
	})
}
