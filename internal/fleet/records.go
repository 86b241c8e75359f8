// Package fleet puts runs from many hosts together. It merges record files
// into one run after checking they share a workload, and merges summaries
// through their histograms when the records are too big to move.
package fleet

import (
	"cmp"
	"fmt"
	"slices"
	"strings"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
)

// WorkloadError is the refusal to merge runs whose workloads differ.
type WorkloadError struct {
	Differences []compare.Difference
	Sources     []string
}

func (e *WorkloadError) Error() string {
	var b strings.Builder
	b.WriteString("the runs do not share a workload, so merged figures would mix two experiments:")
	for _, d := range e.Differences {
		fmt.Fprintf(&b, "\n  %s:", d.Setting)
		for i, v := range d.Values {
			fmt.Fprintf(&b, " %s = %s;", sanitize.Line(e.Sources[i]), sanitize.Line(v))
		}
	}
	return b.String()
}

// MergeRecords combines the records of several runs into one stream of
// records. Runs come in the order of their first appearance, each run's
// records in seq order, so the shards of one run (one run id, disjoint seqs) come
// out as the single agent would have written them. It refuses inputs whose
// workloads differ (target, format, model, max tokens, load, stall
// threshold) and the same stream twice (one run id, host and seq).
func MergeRecords(inputs []compare.Input) ([]*record.Record, error) {
	if d := compare.MergeDifferences(inputs); len(d) > 0 {
		src := make([]string, len(inputs))
		for i, in := range inputs {
			src[i] = in.Source
		}
		return nil, &WorkloadError{Differences: d, Sources: src}
	}
	order := map[string]int{}
	seen := map[record.StreamID]string{}
	var out []*record.Record
	for _, in := range inputs {
		for _, r := range in.Records {
			k := r.StreamID()
			if prev, dup := seen[k]; dup {
				return nil, fmt.Errorf("run %s seq %d (host %q) is in %s and in %s: the same stream twice (two shards with one index?)",
					sanitize.Line(r.RunID), r.Seq, sanitize.Line(r.Host), sanitize.Line(prev), sanitize.Line(in.Source))
			}
			seen[k] = in.Source
			if _, ok := order[r.RunID]; !ok {
				order[r.RunID] = len(order)
			}
			out = append(out, r)
		}
	}
	if err := checkShards(out); err != nil {
		return nil, err
	}
	slices.SortStableFunc(out, func(a, b *record.Record) int {
		return cmp.Or(cmp.Compare(order[a.RunID], order[b.RunID]), cmp.Compare(a.Seq, b.Seq))
	})
	return out, nil
}

// checkShards refuses a sharded run with shards missing. Once merged, its
// accounting would pass for the whole workload's while a slice of it was
// never counted. A shard's records carry "i/N" and its run's id. The
// records of one run must agree on N.
func checkShards(recs []*record.Record) error {
	type run struct {
		n     int
		shard string // the first record's "i/N", to name on a disagreement
		have  map[int]bool
	}
	runs := map[string]*run{}
	var ids []string
	for _, r := range recs {
		if r.Workload == nil || r.Workload.Shard == "" {
			continue
		}
		i, n, err := record.ParseShard(r.Workload.Shard) // record.Check bounds N
		if err != nil || n < 2 {
			continue
		}
		x := runs[r.RunID]
		if x == nil {
			x = &run{n: n, shard: r.Workload.Shard, have: map[int]bool{}}
			runs[r.RunID] = x
			ids = append(ids, r.RunID)
		}
		if n != x.n {
			return fmt.Errorf("run %s: shard %s and shard %s of one run say different numbers of shards", sanitize.Line(r.RunID), sanitize.Line(r.Workload.Shard), sanitize.Line(x.shard))
		}
		x.have[i] = true
	}
	for _, id := range ids {
		if err := missingShards(id, runs[id].n, runs[id].have); err != nil {
			return err
		}
	}
	return nil
}

// namedShards is how many missing shards an error names before it
// counts the rest.
const namedShards = 8

// missingShards says which of run id's n shards have no record, naming
// a few and counting the rest. It bounds the names because n comes from a
// file.
func missingShards(id string, n int, have map[int]bool) error {
	var named []string
	count := n - len(have)
	for i := 0; i < n && len(named) < namedShards; i++ {
		if !have[i] {
			named = append(named, fmt.Sprintf("%d/%d", i, n))
		}
	}
	switch {
	case count == 0:
		return nil
	case count == 1:
		return fmt.Errorf("run %s ran as %d shards and shard %s is missing (no record of it in the files given): merge all %d shards' files", sanitize.Line(id), n, named[0], n)
	case count > len(named):
		named = append(named, fmt.Sprintf("… (%d in all)", count))
	}
	return fmt.Errorf("run %s ran as %d shards and shards %s are missing (no record of them in the files given): merge all %d shards' files", sanitize.Line(id), n, strings.Join(named, ", "), n)
}

// Hosts lists the hosts of records, sorted.
func Hosts(recs []*record.Record) []string {
	var hosts []string
	for _, r := range recs {
		if !slices.Contains(hosts, r.Host) {
			hosts = append(hosts, r.Host)
		}
	}
	slices.Sort(hosts)
	return hosts
}
