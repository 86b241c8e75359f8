package aiperf

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/record"
)

// ExportFile writes a recording's trace to --out and says so; a recording
// without a recorded stream is exit 2 and leaves no file.
func TestExportFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ex := &record.Exchange{Streamed: true}
	ex.SetResponse([]byte("data: {\"choices\":[],\"usage\":{\"prompt_tokens\":12}}\n\n"))
	ttft := 100.0
	rec := filepath.Join(dir, "rec.jsonl")
	if err := pipeline.WriteRecords(rec, []*record.Record{
		{V: record.RecordVersion, RunID: "r", Phase: record.PhaseMeasure, TTFTMS: &ttft, DurationMS: 200, Exchange: ex,
			Frames: []record.Frame{{TMS: ttft, Bytes: 10, Kind: record.KindContent, Text: "hello"}}},
	}); err != nil {
		t.Fatal(err)
	}
	out, stdout, stderr := filepath.Join(dir, "trace.jsonl"), &strings.Builder{}, &strings.Builder{}
	if err := ExportFile(rec, out, stdout, stderr); err != nil {
		t.Fatal(err)
	}
	b, _ := os.ReadFile(out)
	if string(b) != `{"timestamp":0,"input_length":12,"output_length":1}`+"\n" || stdout.Len() != 0 || !strings.Contains(stderr.String(), "1 request written to") {
		t.Errorf("trace %q, stdout %q, stderr %q", b, stdout.String(), stderr.String())
	}
	plain := filepath.Join(dir, "plain.jsonl")
	if err := pipeline.WriteRecords(plain, []*record.Record{{V: record.RecordVersion, RunID: "r", Phase: record.PhaseMeasure}}); err != nil {
		t.Fatal(err)
	}
	err := ExportFile(plain, filepath.Join(dir, "none.jsonl"), stdout, stderr)
	var ee *pipeline.ExitError
	if !errors.As(err, &ee) || ee.Code != pipeline.ExitUsage || !strings.Contains(err.Error(), "no recorded streams") {
		t.Errorf("no recorded stream: %v, want exit 2", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "none.jsonl")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("a trace file was left: %v", err)
	}
}
