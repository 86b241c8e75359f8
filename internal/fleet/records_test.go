package fleet_test

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driplab/drip/compare"
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

// A shard count is read from the file, so what merge says of the shards
// missing is bounded by a few names, whatever the count: one record of
// "0/100000" built and printed 99,999 names (a billion ran out of
// memory). Records of one run that disagree on the count are refused.
func TestMergeBoundsWhatItSaysOfMissingShards(t *testing.T) {
	t.Parallel()
	_, err := fleet.MergeRecords([]compare.Input{shardFile(0, 100_000)})
	if err == nil || len(err.Error()) > 400 || !strings.Contains(err.Error(), "shards 1/100000, 2/100000, ") || !strings.Contains(err.Error(), "99999 in all") {
		t.Errorf("one shard of 100000: error %.500v; want a few names and the count", err)
	}
	a, b := shardFile(0, 2), shardFile(1, 2)
	b.Records[0].Workload.Shard = "1/3"
	_, err = fleet.MergeRecords([]compare.Input{a, b})
	if want := "shard 1/3 and shard 0/2 of one run"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("counts 2 and 3 in one run: error %v, want one saying %q", err, want)
	}
}
