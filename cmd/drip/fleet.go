package main

import (
	"os"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/probe"
)

// fleetFlags say where a run ran and what it is part of. They put the host
// and the user's labels on every record, for merging runs from many hosts.
type fleetFlags struct {
	labels    []string
	hostLabel string
	shard     string
	shards    int
}

func (f *fleetFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVar(&f.labels, "label", nil, "tag every record (and exported series) with k=v, e.g. --label region=eu --label build=1234 (repeatable)")
	fs.StringVar(&f.hostLabel, "host-label", "", "the host name records carry (default: this machine's hostname)")
	fs.StringVar(&f.shard, "shard", "", "run slice i of N (0 ≤ i < N) of the seeded workload, e.g. --shard 0/4; N agents send exactly what one would")
	fs.IntVar(&f.shards, "shards", 0, "run one of N slices, the index from JOB_COMPLETION_INDEX (a Kubernetes Indexed Job)")
}

// applyShard reads --shard / --shards (and JOB_COMPLETION_INDEX) into the
// plan. Every agent must draw the same workload, so a sharded run needs
// --seed.
func (f *fleetFlags) applyShard(fs *pflag.FlagSet, p *probe.Plan) error {
	if f.shard == "" && f.shards == 0 {
		return nil
	}
	i, n, err := probe.ParseShard(f.shard, f.shards, os.Getenv("JOB_COMPLETION_INDEX"))
	if err != nil {
		return usageErr("%v", err)
	}
	if !fs.Changed("seed") {
		return usageErr("--shard: give every agent the same --seed, so they draw one workload")
	}
	p.SetShard(i, n)
	return nil
}

// apply checks the flags and stamps the plan with the host and labels.
func (f *fleetFlags) apply(p *probe.Plan) error {
	for _, kv := range f.labels {
		if err := p.AddLabel(kv); err != nil {
			return usageErr("--label %q: %v", kv, err)
		}
	}
	p.Host = f.hostLabel
	if p.Host == "" {
		h, err := os.Hostname()
		if err != nil || h == "" {
			h = "unknown"
		}
		p.Host = h
	}
	return nil
}
