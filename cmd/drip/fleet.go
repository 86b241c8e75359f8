package main

import (
	"fmt"
	"hash/fnv"
	"os"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/probe"
)

// fleetFlags say where a run ran and what it is part of: the host and the
// user's labels on every record, for merging runs from many hosts.
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
// --seed; the shards share a run id made from the seed and the workload,
// so their records merge into one run.
func (f *fleetFlags) applyShard(fs *pflag.FlagSet, p *probe.Plan) error {
	if f.shard == "" && f.shards == 0 {
		return nil
	}
	i, n := -1, f.shards
	if f.shard != "" {
		a, b, ok := strings.Cut(f.shard, "/")
		x, err1 := strconv.Atoi(a)
		y, err2 := strconv.Atoi(b)
		if !ok || err1 != nil || err2 != nil || y < 1 || x < 0 || x >= y {
			return usageErr("--shard %q: want i/N with 0 ≤ i < N, e.g. 0/4", f.shard)
		}
		if n != 0 && n != y {
			return usageErr("--shard %s and --shards %d disagree on the number of shards", f.shard, n)
		}
		i, n = x, y
	} else {
		env := os.Getenv("JOB_COMPLETION_INDEX")
		x, err := strconv.Atoi(env)
		switch {
		case n < 1:
			return usageErr("--shards must be at least 1")
		case env == "" || err != nil || x < 0 || x >= n:
			return usageErr("--shards %d takes the index from JOB_COMPLETION_INDEX, which is %q: set it (0 ≤ index < %d) or give --shard i/%d", n, env, n, n)
		}
		i = x
	}
	if !fs.Changed("seed") {
		return usageErr("--shard: give every agent the same --seed, so they draw one workload")
	}
	p.Shard, p.Shards = i, n
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%d|%s|%d|%d|%g", p.Seed, n, probe.RedactURL(p.Target.URL), p.Runs, p.Warmup, p.Rate)
	p.RunID = fmt.Sprintf("s%012x", h.Sum64()&(1<<48-1))
	return nil
}

// shardLabel is "i/N" for a sharded plan's records, "" otherwise.
func shardLabel(p *probe.Plan) string {
	if p.Shards == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.Shard, p.Shards)
}

// labelKey is a name that every receiver accepts: Prometheus's label rule.
var labelKey = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// reservedLabels are names drip sets itself on records or series.
var reservedLabels = []string{"host", "target", "model", "format", "prompt_id", "status", "error_class", "phase", "le", "job", "instance"}

// apply checks the flags and stamps the plan with the host and labels.
func (f *fleetFlags) apply(p *probe.Plan) error {
	for _, kv := range f.labels {
		k, v, ok := strings.Cut(kv, "=")
		switch {
		case !ok || v == "":
			return usageErr("--label %q: want k=v", kv)
		case !labelKey.MatchString(k):
			return usageErr("--label %q: the key must be letters, digits and _ (not starting with a digit)", kv)
		case slices.Contains(reservedLabels, k):
			return usageErr("--label %q: %s is drip's own (reserved: %s)", kv, k, strings.Join(reservedLabels, ", "))
		case p.Labels[k] != "":
			return usageErr("--label %q: %s given twice", kv, k)
		}
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = v
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
