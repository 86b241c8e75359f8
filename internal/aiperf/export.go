package aiperf

import (
	"bytes"
	"fmt"
	"io"

	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/internal/sanitize"
)

// ExportFile writes the trace of the drip record file at path to out
// (stdout when empty) and says on stderr what it left out (drip export
// aiperf). The file is created only when the trace has a line. An empty
// trace is exit 3 and leaves no empty file (or an earlier one truncated)
// behind. A file with no recorded stream is exit 2.
func ExportFile(path, out string, stdout, stderr io.Writer) error {
	in, err := pipeline.Read(path, path, stderr)
	if err != nil {
		return err
	}
	streams := replay.Recorded(in.Records)
	if len(streams) == 0 {
		return pipeline.Usage("%s: no recorded streams (record them with drip record)", path)
	}
	var trace bytes.Buffer
	st, _ := WriteTrace(&trace, streams) // a bytes.Buffer does not fail a write
	if st.Lines > 0 {
		if err := pipeline.WriteOut(stdout, out, trace.Bytes()); err != nil {
			return err
		}
	}
	st.writeNotes(stderr, out)
	if st.Lines == 0 {
		return pipeline.Cannot(fmt.Errorf("%s: no stream has both an input and an output length: the trace is empty", sanitize.Line(path)))
	}
	return nil
}
