package main

import (
	"bytes"
	"errors"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/aiperf"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
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
file, a file with no stream 'drip record' made), 3 the file does not
parse or holds no records, no stream is left for the trace, or --out
cannot be created or written.`

func newExportCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "export",
		Short: "Write a recording in another tool's format",
		Example: `  drip export aiperf rec.jsonl --out trace.jsonl
  aiperf profile --input-file trace.jsonl --custom-dataset-type mooncake_trace`,
	}
	var out string
	aiperf := &cobra.Command{
		Use:   "aiperf REC.jsonl [--out trace.jsonl]",
		Short: "A mooncake-style trace of a recording, for NVIDIA AIPerf",
		Long:  exportAIPerfLong,
		Example: `  drip export aiperf rec.jsonl --out trace.jsonl
  drip export aiperf rec.jsonl | head -3`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error { return runExportAIPerf(cmd, args[0], out) },
	}
	aiperf.Flags().StringVar(&out, "out", "", "write the trace to this file (default: stdout)")
	cmd.AddCommand(aiperf)
	return cmd
}

// runExportAIPerf writes the AIPerf trace of the record file at path to out
// (stdout when empty) and says on stderr what it left out.
func runExportAIPerf(cmd *cobra.Command, path, out string) error {
	in, err := pipeline.Read(path, path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	streams := replay.Recorded(in.Records)
	if len(streams) == 0 {
		return usageErr("%s: no recorded streams (record them with drip record)", path)
	}
	st, err := writeTrace(cmd.OutOrStdout(), out, streams)
	if err != nil {
		return err
	}
	if out != "" && st.Lines > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "drip export: %s written to %s\n", stats.Count(st.Lines, "request"), sanitize.Line(out))
	}
	if st.NoOutput > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "drip export: left out %s that failed before any content (no output_length is known)\n", stats.Count(st.NoOutput, "stream"))
	}
	if st.NoInputCount > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "drip export: left out %s whose server reported no prompt tokens (AIPerf needs an input_length; OpenAI reports usage in a stream only with stream_options.include_usage)\n", stats.Count(st.NoInputCount, "stream"))
	}
	if st.Lines == 0 {
		return cannotErr(fmt.Errorf("%s: no stream has both an input and an output length: the trace is empty", sanitize.Line(path)))
	}
	return nil
}

// writeTrace writes the AIPerf trace to out (stdout when empty); a failed
// write or close of the file is exit 3. The file is created only when the
// trace has a line: an empty trace is exit 3, and leaves no empty file (or
// an earlier one truncated) behind.
func writeTrace(stdout io.Writer, out string, streams []*record.Record) (aiperf.TraceStats, error) {
	if out == "" {
		st, err := aiperf.WriteTrace(stdout, streams)
		if err != nil {
			return st, cannotErr(err)
		}
		return st, nil
	}
	var trace bytes.Buffer
	st, _ := aiperf.WriteTrace(&trace, streams) // a bytes.Buffer does not fail a write
	if st.Lines == 0 {
		return st, nil
	}
	f, err := record.CreatePrivate(out)
	if err != nil {
		return st, cannotErr(fmt.Errorf("--out: %w", err))
	}
	_, err = f.Write(trace.Bytes())
	if err := errors.Join(err, f.Close()); err != nil {
		return st, cannotErr(fmt.Errorf("--out: %w", err))
	}
	return st, nil
}
