package fleet_test

import (
	"strings"
	"testing"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/fleet"
)

// The notes count what was merged, and name a file whose streams all
// failed and a setting the files differ in, by file.
func TestWriteNotes(t *testing.T) {
	a, b := shardFile(0, 2), shardFile(1, 2)
	for _, r := range b.Records {
		r.Host = "h2"
		r.Workload.Version = "v0.9.0"
	}
	inputs := []compare.Input{a, b}
	recs, err := fleet.MergeRecords(inputs)
	if err != nil {
		t.Fatal(err)
	}
	var w strings.Builder
	fleet.WriteNotes(&w, inputs, recs, "all.jsonl")
	for _, want := range []string{
		"drip: merged 9 records from 2 files (2 hosts: h, h2) into all.jsonl\n",
		"drip: note: shard-0.jsonl: no measured stream completed",
		"drip: note: the files differ in drip version (shard-0.jsonl = not recorded; shard-1.jsonl = v0.9.0): the merged run's figures come from each\n",
	} {
		if !strings.Contains(w.String(), want) {
			t.Errorf("notes lack %q:\n%s", want, w.String())
		}
	}
}
