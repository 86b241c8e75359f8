package main

import (
	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/fleet"
	"github.com/driplab/drip/internal/pipeline"
)

func newMergeCmd() *cobra.Command {
	var (
		out       string
		summaries bool
		force     bool
	)
	cmd := &cobra.Command{
		Use:     "merge A.jsonl B.jsonl [C.jsonl …] --out ALL.jsonl | merge --summaries A.json B.json …",
		Short:   "Combine runs from many hosts (or the shards of one run) into one record file",
		Long:    mergeLong,
		Example: mergeExample,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := pipeline.CheckOutPath("--out", out, force); err != nil {
				return err
			}
			switch {
			case summaries:
				return fleet.MergeSummaryFiles(cmd.Context(), args, out, cmd.OutOrStdout(), cmd.ErrOrStderr())
			case out == "":
				return usageErr("--out: name the merged record file (merged records are never written to stdout; only --summaries prints there)")
			}
			return fleet.MergeFiles(args, out, cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the merged record file (JSON Lines, mode 0600), required when merging records; with --summaries the merged summary, stdout when --out is not given")
	cmd.Flags().BoolVar(&summaries, "summaries", false, "merge --json summaries (their histograms) instead of record files")
	registerForce(cmd.Flags(), &force)
	return cmd
}

// mergeLong is drip merge's --help text.
var mergeLong = `Merge record files written by 'drip run --out' on several hosts, or by the
shards of one sharded run, into one file that every other command reads as
one run. The runs must share a workload — target, format, model, max
tokens, concurrency or rate, stall threshold — or drip refuses and lists
what differs. Files written by different drip versions are merged, and
drip says which versions (the merged run reports them all). Each record
keeps its host and labels, so
'drip compare --by host' puts the hosts side by side afterwards.

Records come out run by run, in seq order: the shards of one run come out
in the order a single agent would have sent them. The same stream twice
(one run id, host and seq, e.g. two shards given one index) is refused, and
so is a sharded run with a shard missing: the error names it.

--summaries merges the summaries 'drip run --json' printed instead, when
the records are too big to move: counts are added and every distribution
is pooled from the histograms the summaries carry — never an average of
their percentiles — so n, min, max and mean are exact and each percentile
within 0.5% of the one over all the raw records. Tokens per second is not
pooled (each run's window is on its own host's clock). The merged summary
goes to stdout, or to --out.

Exit codes: 0 merged; 2 usage error or a refused merge (workloads that
differ, a stream twice, a shard missing, a file that is missing or cannot be
read, no --out for records); 3 a record file that does not parse or holds no
record, a --summaries file that is no drip run --json summary, or a failed
write to --out.`

// mergeExample is drip merge's --help examples.
var mergeExample = `  drip merge host-a.jsonl host-b.jsonl --out all.jsonl
  drip merge --summaries host-a.json host-b.json --out all.json
  drip compare --by host all.jsonl
  drip merge shard-*.jsonl --out run.jsonl && drip view run.jsonl`
