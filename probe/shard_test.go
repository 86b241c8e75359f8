package probe_test

import (
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
)

func TestParseShard(t *testing.T) {
	for _, tc := range []struct {
		shard     string
		shards    int
		env       string
		i, n      int
		wantError string
	}{
		{shard: "1/4", i: 1, n: 4},
		{shard: "1/4", shards: 4, i: 1, n: 4},
		{shards: 3, env: "2", i: 2, n: 3},
		{shard: "4/4", wantError: `--shard "4/4": want i/N`},
		{shard: "1/4", shards: 2, wantError: "disagree on the number of shards"},
		{shards: -1, wantError: "--shards must be 1 to 100000"},
		{shard: "0/100001", wantError: `--shard "0/100001": want i/N with 0 ≤ i < N ≤ 100000`},
		{shards: 3, env: "3", wantError: `JOB_COMPLETION_INDEX, which is "3"`},
	} {
		i, n, err := probe.ParseShard(tc.shard, tc.shards, tc.env)
		if tc.wantError != "" {
			if err == nil || !strings.Contains(err.Error(), tc.wantError) {
				t.Errorf("%+v: %v, want %q", tc, err, tc.wantError)
			}
			continue
		}
		if err != nil || i != tc.i || n != tc.n {
			t.Errorf("%+v: %d/%d, %v", tc, i, n, err)
		}
	}
}

// The shards of one seeded workload share a run id, another seed makes
// another.
func TestShardsShareARunID(t *testing.T) {
	a, b, c := probe.Plan{Seed: 7, Runs: 8}, probe.Plan{Seed: 7, Runs: 8}, probe.Plan{Seed: 8, Runs: 8}
	a.SetShard(0, 2)
	b.SetShard(1, 2)
	c.SetShard(0, 2)
	if a.RunID == "" || a.RunID != b.RunID || a.RunID == c.RunID {
		t.Errorf("run ids %q %q %q: want the first two alike, the third not", a.RunID, b.RunID, c.RunID)
	}
	if a.ShardLabel() != "0/2" || b.ShardLabel() != "1/2" || (&probe.Plan{}).ShardLabel() != "" {
		t.Errorf("labels %q %q", a.ShardLabel(), b.ShardLabel())
	}
}

func TestAddLabel(t *testing.T) {
	var p probe.Plan
	if err := p.AddLabel("region=eu"); err != nil || p.Labels["region"] != "eu" {
		t.Fatalf("labels %v, %v", p.Labels, err)
	}
	for kv, want := range map[string]string{"region": "want k=v", "region=": "want k=v", "9x=1": "the key must be",
		"host=a": "host is drip's own", "region=us": "region given twice"} {
		if err := p.AddLabel(kv); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("AddLabel(%q) = %v, want %q", kv, err, want)
		}
	}
}
