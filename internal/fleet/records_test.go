package fleet_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/compare"
	"github.com/driplab/drip/internal/fleet"
	"github.com/driplab/drip/record"
)

// shardFile is shard i of a run sharded n ways: seqs i, i+n, … below 9.
func shardFile(i, n int) compare.Input {
	in := compare.Input{Label: fmt.Sprint(i), Source: fmt.Sprintf("shard-%d.jsonl", i)}
	for seq := i; seq < 9; seq += n {
		in.Records = append(in.Records, &record.Record{RunID: "s1", Seq: seq, Phase: record.PhaseMeasure, Host: "h",
			Workload: &record.RecordWorkload{Shard: fmt.Sprintf("%d/%d", i, n)}})
	}
	return in
}

func TestMergeRefusesASharedRunWithAShardMissing(t *testing.T) {
	for _, c := range []struct {
		name  string
		files []compare.Input
		want  string // in the error; "": merges
	}{
		{"all three", []compare.Input{shardFile(0, 3), shardFile(1, 3), shardFile(2, 3)}, ""},
		{"the last missing", []compare.Input{shardFile(0, 3), shardFile(1, 3)}, "shard 2/3 is missing"},
		{"the first missing", []compare.Input{shardFile(2, 3), shardFile(1, 3)}, "shard 0/3 is missing"},
		{"two missing", []compare.Input{shardFile(1, 3)}, "shards 0/3, 2/3 are missing"},
	} {
		t.Run(c.name, func(t *testing.T) {
			recs, err := fleet.MergeRecords(c.files)
			switch {
			case c.want == "" && err != nil:
				t.Fatalf("merging every shard: %v", err)
			case c.want == "" && len(recs) != 9:
				t.Errorf("merged %d records, want 9", len(recs))
			case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
				t.Errorf("error %v, want one saying %q", err, c.want)
			}
		})
	}
}
