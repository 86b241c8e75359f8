package fleet_test

import (
	"encoding/json"
	"math/rand/v2"
	"testing"

	"github.com/driplab/drip/fleet"
	"github.com/driplab/drip/stats"
)

// FuzzMergeSummaries: whatever a --summaries file holds, drip merge
// either refuses it (ReadSummary, MergeSummaries) or merges it with
// itself, without a panic, to a summary that reads back as one. Seeds in
// testdata/fuzz/FuzzMergeSummaries.
func FuzzMergeSummaries(f *testing.F) {
	agg := stats.NewAggregate(stats.DefaultStall)
	rng := rand.New(rand.NewPCG(1, 2))
	for i := range 12 {
		agg.Add(randomRecord(f, rng, "a", i))
	}
	b, err := json.Marshal(agg.Summary(stats.Workload{Target: "http://x/v1/chat/completions", Format: "openai-chat"}))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(b)
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
			return // drip merge says it cannot write it (exit 3)
		}
		if _, err := fleet.ReadSummary(out, "merged"); err != nil {
			t.Fatalf("the merged summary does not read back: %v", err)
		}
	})
}
