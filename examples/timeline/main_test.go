package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

// TestTimelineMeasuresAStreamAndSavesItsRecord runs the program against
// drip's built-in server and reads back the record it wrote.
func TestTimelineMeasuresAStreamAndSavesItsRecord(t *testing.T) {
	t.Parallel()
	out := filepath.Join(t.TempDir(), "run.jsonl")
	var w bytes.Buffer
	if err := run(context.Background(), []string{"-model", "fast", "-width", "60", "-out", out}, &w); err != nil {
		t.Fatal(err)
	}
	got := w.String()
	for _, want := range []string{"status complete", "summary: 1 attempted, 1 completed", "■"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := record.ReadAll(f, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != 1 || !recs[0].Complete || recs[0].Model != "fast" {
		t.Fatalf("record file holds %d records, want one complete stream of model fast", len(recs))
	}
}

// TestTimelineRefusesAnUnknownFormat shows a bad flag is an error, not a
// stream.
func TestTimelineRefusesAnUnknownFormat(t *testing.T) {
	t.Parallel()
	err := run(context.Background(), []string{"-format", "nope"}, &bytes.Buffer{})
	if err == nil {
		t.Fatal("run with -format nope succeeded")
	}
}
