package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/fleet"
	"github.com/driplab/drip/probe"
)

func newMergeCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "merge A.jsonl B.jsonl [C.jsonl …] --out ALL.jsonl",
		Short: "Combine runs from many hosts (or the shards of one run) into one record file",
		Long: `Merge record files written by 'drip run --out' on several hosts, or by the
shards of one sharded run, into one file that every other command reads as
one run. The runs must share a workload — target, format, model, max
tokens, concurrency or rate, stall threshold — or drip refuses and lists
what differs. Each record keeps its host and labels, so
'drip compare --by host' puts the hosts side by side afterwards.

Records come out run by run, in seq order: the shards of one run come out
in the order a single agent would have sent them. The same stream twice
(one run id, host and seq, e.g. two shards given one index) is refused.`,
		Example: `  drip merge host-a.jsonl host-b.jsonl --out all.jsonl
  drip compare --by host all.jsonl
  drip merge shard-*.jsonl --out run.jsonl && drip view run.jsonl`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if out == "" {
				return usageErr("--out: name the merged file")
			}
			inputs := make([]compare.Input, len(args))
			for i, path := range args {
				in, err := readRun(path, path, cmd.ErrOrStderr())
				if err != nil {
					return err
				}
				inputs[i] = in
			}
			recs, err := fleet.MergeRecords(inputs)
			if err != nil {
				return usageErr("%v", err)
			}
			w, err := probe.Create(out)
			if err != nil {
				return cannotErr(fmt.Errorf("--out: %w", err))
			}
			for _, r := range recs {
				w.Write(r)
			}
			if err := w.Close(); err != nil {
				return cannotErr(fmt.Errorf("--out: %w", err))
			}
			hosts := fleet.Hosts(recs)
			fmt.Fprintf(cmd.ErrOrStderr(), "drip: merged %d records from %d files (%d hosts: %s) into %s\n",
				len(recs), len(args), len(hosts), strings.Join(hosts, ", "), out)
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "the merged record file (JSON Lines, mode 0600)")
	return cmd
}
