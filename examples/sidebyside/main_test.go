package main

import (
	"bytes"
	"path/filepath"
	"strings"
	"testing"
)

// testdata holds record files drip wrote against its fixture server.
var testdata = filepath.Join("..", "..", "compare", "testdata")

// TestSideBySideComparesTwoRecordedRuns compares a steady run with one
// that stalled and finds both runs and a figure's change in the output.
func TestSideBySideComparesTwoRecordedRuns(t *testing.T) {
	t.Parallel()
	var w bytes.Buffer
	args := []string{filepath.Join(testdata, "steady.jsonl"), filepath.Join(testdata, "stall.jsonl")}
	if err := run(args, &w); err != nil {
		t.Fatal(err)
	}
	got := w.String()
	for _, want := range []string{"steady.jsonl", "stall.jsonl", "ttft", "%"} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q:\n%s", want, got)
		}
	}
}

// TestSideBySideNeedsTwoFiles shows one file is an error, not a table.
func TestSideBySideNeedsTwoFiles(t *testing.T) {
	t.Parallel()
	if err := run([]string{filepath.Join(testdata, "steady.jsonl")}, &bytes.Buffer{}); err == nil {
		t.Fatal("run with one file succeeded")
	}
}
