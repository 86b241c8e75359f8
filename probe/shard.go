package probe

import (
	"errors"
	"fmt"
	"hash/fnv"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/driplab/drip/record"
)

// ParseShard reads which slice of a sharded workload this agent runs:
// shard "i/N" (--shard), else index env of shards N (--shards, the index
// from JOB_COMPLETION_INDEX, a Kubernetes Indexed Job). Its errors name
// the flags.
func ParseShard(shard string, shards int, env string) (i, n int, err error) {
	if shard == "" {
		x, err := strconv.Atoi(env)
		switch {
		case shards < 1 || shards > record.MaxShards:
			return 0, 0, fmt.Errorf("--shards must be 1 to %d", record.MaxShards)
		case env == "" || err != nil || x < 0 || x >= shards:
			return 0, 0, fmt.Errorf("--shards %d takes the index from JOB_COMPLETION_INDEX, which is %q: set it (0 ≤ index < %d) or give --shard i/%d", shards, env, shards, shards)
		}
		return x, shards, nil
	}
	a, b, ok := strings.Cut(shard, "/")
	x, err1 := strconv.Atoi(a)
	y, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || y < 1 || x < 0 || x >= y || y > record.MaxShards {
		return 0, 0, fmt.Errorf("--shard %q: want i/N with 0 ≤ i < N ≤ %d, e.g. 0/4", shard, record.MaxShards)
	}
	if shards != 0 && shards != y {
		return 0, 0, fmt.Errorf("--shard %s and --shards %d disagree on the number of shards", shard, shards)
	}
	return x, y, nil
}

// SetShard makes the plan slice i of n. The shards share a run id made
// from the seed and the workload, so their records merge into one run.
func (p *Plan) SetShard(i, n int) {
	p.Shard, p.Shards = i, n
	h := fnv.New64a()
	fmt.Fprintf(h, "%d|%d|%s|%d|%d|%g", p.Seed, n, RedactURL(p.Target.URL), p.Runs, p.Warmup, p.Rate)
	p.RunID = fmt.Sprintf("s%012x", h.Sum64()&(1<<48-1))
}

// ShardLabel is "i/N" for a sharded plan's records, "" otherwise.
func (p *Plan) ShardLabel() string {
	if p.Shards == 0 {
		return ""
	}
	return fmt.Sprintf("%d/%d", p.Shard, p.Shards)
}

// labelKey is a name that every receiver accepts: Prometheus's label rule.
var labelKey = regexp.MustCompile(`^[a-zA-Z_][a-zA-Z0-9_]*$`)

// reservedLabels are names drip sets itself on records or series.
var reservedLabels = []string{"host", "target", "model", "format", "prompt_id", "status", "error_class", "phase", "le", "job", "instance"}

// AddLabel adds a user's label k=v to the plan's records: a key every
// receiver accepts, none of drip's own, each once.
func (p *Plan) AddLabel(kv string) error {
	k, v, ok := strings.Cut(kv, "=")
	switch {
	case !ok || v == "":
		return errors.New("want k=v")
	case !labelKey.MatchString(k):
		return errors.New("the key must be letters, digits and _ (not starting with a digit)")
	case slices.Contains(reservedLabels, k):
		return fmt.Errorf("%s is drip's own (reserved: %s)", k, strings.Join(reservedLabels, ", "))
	case p.Labels[k] != "":
		return fmt.Errorf("%s given twice", k)
	}
	if p.Labels == nil {
		p.Labels = map[string]string{}
	}
	p.Labels[k] = v
	return nil
}
