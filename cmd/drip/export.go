package main

import (
	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/aiperf"
	"github.com/driplab/drip/internal/pipeline"
)

// exportAIPerfLong is drip export aiperf's --help.
var exportAIPerfLong = `Write the streams of a 'drip record' file as a mooncake-style trace, one
line per request in the order they started: timestamp (ms from the first
line's request: 0 on the first line), input_length (prompt tokens, as the
server's usage report said) and output_length (output tokens). AIPerf can
then put its own numbers on the same requests:
  aiperf profile --input-file trace.jsonl --custom-dataset-type mooncake_trace
No header, body or credential goes into the trace. A stream is left out, and
counted on stderr, when its server reported no prompt tokens (AIPerf
refuses a line without input_length; OpenAI streams report usage only
when asked, stream_options.include_usage) or when it failed before any
content (its output length is unknown).

Exit codes: 0 the trace was written, 2 a usage error (a flag, a missing
file, a file with no stream 'drip record' made, an --out that holds data
without --force or whose directory is missing), 3 the file does not parse
or holds no records, no stream is left for the trace, or --out cannot be
written.`

// exportExample is drip export's --help examples.
var exportExample = `  drip export aiperf rec.jsonl --out trace.jsonl
  aiperf profile --input-file trace.jsonl --custom-dataset-type mooncake_trace`

// exportAIPerfExample is drip export aiperf's --help examples.
var exportAIPerfExample = `  drip export aiperf rec.jsonl --out trace.jsonl
  drip export aiperf rec.jsonl | head -3`

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{Use: "export", Short: "Write a recording in another tool's format", Example: exportExample}
	var (
		out   string
		force bool
	)
	trace := &cobra.Command{
		Use:     "aiperf REC.jsonl [--out trace.jsonl]",
		Short:   "A mooncake-style trace of a recording, for NVIDIA AIPerf",
		Long:    exportAIPerfLong,
		Example: exportAIPerfExample,
		Args:    cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := pipeline.CheckOutPath("--out", out, force); err != nil {
				return err
			}
			return aiperf.ExportFile(args[0], out, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	trace.Flags().StringVar(&out, "out", "", "write the trace to this file (default: stdout)")
	registerForce(trace.Flags(), &force)
	cmd.AddCommand(trace)
	return cmd
}
