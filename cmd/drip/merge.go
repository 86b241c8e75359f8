package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/compare"
	"github.com/driplab/drip/internal/fleet"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/userfile"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

func newMergeCmd() *cobra.Command {
	var (
		out       string
		summaries bool
	)
	cmd := &cobra.Command{
		Use:     "merge A.jsonl B.jsonl [C.jsonl …] --out ALL.jsonl | merge --summaries A.json B.json …",
		Short:   "Combine runs from many hosts (or the shards of one run) into one record file",
		Long:    mergeLong,
		Example: mergeExample,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if summaries {
				return mergeSummaries(cmd.Context(), cmd.OutOrStdout(), args, out)
			}
			if out == "" {
				return usageErr("--out: name the merged record file (merged records are never written to stdout; only --summaries prints there)")
			}
			inputs := make([]compare.Input, len(args))
			for i, path := range args {
				in, err := pipeline.Read(path, path, cmd.ErrOrStderr())
				if errors.Is(err, pipeline.ErrNoRecords) {
					return pipeline.Cannot(fmt.Errorf("%w: a host that recorded nothing; leave the file out to merge the others", err))
				}
				if err != nil {
					return err
				}
				inputs[i] = in
			}
			recs, err := fleet.MergeRecords(inputs)
			if err != nil {
				return usageErr("%v", err)
			}
			if err := writeRecords(out, recs); err != nil {
				return err
			}
			hosts := fleet.Hosts(recs)
			fmt.Fprintf(cmd.ErrOrStderr(), "drip: merged %s from %s (%s: %s) into %s\n",
				stats.Count(len(recs), "record"), stats.Count(len(args), "file"), stats.Count(len(hosts), "host"), strings.Join(hosts, ", "), out)
			for _, in := range inputs {
				sum := compare.Summarize(in) // a host that sent nothing good is not hidden in the merged counts
				if none := compare.NoneCompleted(&sum); none != "" {
					fmt.Fprintf(cmd.ErrOrStderr(), "drip: note: %s: %s\n", sanitize.Line(in.Source), none)
				}
			}
			for _, d := range compare.MergeNotes(inputs) {
				fmt.Fprintf(cmd.ErrOrStderr(), "drip: note: the files differ in %s (%s): the merged run's figures come from each\n",
					d.Setting, valuesBySource(d, args))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the merged record file (JSON Lines, mode 0600), required when merging records; with --summaries the merged summary, stdout when --out is not given")
	cmd.Flags().BoolVar(&summaries, "summaries", false, "merge --json summaries (their histograms) instead of record files")
	return cmd
}

// valuesBySource is a difference's values as "a.jsonl = v1; b.jsonl = v2".
func valuesBySource(d compare.Difference, sources []string) string {
	parts := make([]string, len(d.Values))
	for i, v := range d.Values {
		parts[i] = sanitize.Line(sources[i]) + " = " + sanitize.Line(v)
	}
	return strings.Join(parts, "; ")
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

// writeRecords writes records to a new record file, every error kept.
func writeRecords(path string, recs []*record.Record) error {
	s, err := pipeline.JSONL("--out", path)
	if err != nil {
		return err
	}
	pl := pipeline.ForFiles(s)
	for _, r := range recs {
		pl.Add(r)
	}
	return pl.Finish()
}

// mergeSummaries reads --json summaries and writes their pooled summary.
func mergeSummaries(ctx context.Context, stdout io.Writer, paths []string, out string) error {
	sums := make([]stats.Summary, len(paths))
	for i, p := range paths {
		b, err := userfile.Read(ctx, p, kindSummary, nil)
		if err != nil {
			return usageErr("--summaries %v", err)
		}
		// A file that opens but is no summary is exit 3, as a record file
		// that does not parse.
		if sums[i], err = fleet.ReadSummary(b, sanitize.Line(p)); err != nil {
			return cannotErr(err)
		}
	}
	m, err := fleet.MergeSummaries(sums, paths)
	if err != nil {
		return usageErr("%v", err)
	}
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		return cannotErr(err)
	}
	b = append(b, '\n')
	if out == "" {
		if _, err := stdout.Write(b); err != nil {
			return cannotErr(err)
		}
		return nil
	}
	f, err := record.CreatePrivate(out)
	if err != nil {
		return cannotErr(fmt.Errorf("--out: %w", err))
	}
	_, err = f.Write(b)
	if err := errors.Join(err, f.Close()); err != nil {
		return cannotErr(fmt.Errorf("--out: %w", err))
	}
	return nil
}
