package fleet_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/fleet"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/record"
)

// MergeFiles writes every shard's records into one file and says so.
func TestMergeFiles(t *testing.T) {
	dir := t.TempDir()
	var paths []string
	for i := range 3 {
		in := shardFile(i, 3)
		for _, r := range in.Records {
			r.V = record.RecordVersion
		}
		p := filepath.Join(dir, in.Source)
		if err := pipeline.WriteRecords(p, in.Records); err != nil {
			t.Fatal(err)
		}
		paths = append(paths, p)
	}
	out, stderr := filepath.Join(dir, "all.jsonl"), &strings.Builder{}
	if err := fleet.MergeFiles(paths, out, stderr); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stderr.String(), "drip: merged 9 records from 3 files") {
		t.Errorf("stderr %q", stderr.String())
	}
	if b, err := os.ReadFile(out); err != nil || strings.Count(string(b), "\n") != 9 {
		t.Errorf("the merged file: %d lines, %v", strings.Count(string(b), "\n"), err)
	}
	err := fleet.MergeFiles(paths[:2], filepath.Join(dir, "two.jsonl"), stderr)
	if code := exitCode(err); code != pipeline.ExitUsage || !strings.Contains(err.Error(), "shard 2/3 is missing") {
		t.Errorf("a shard missing: exit %d, %v", code, err)
	}
}

// A summary file that is missing is exit 2, one that is no summary exit 3.
func TestMergeSummaryFilesRefusals(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.json")
	os.WriteFile(bad, []byte(`{}`), 0o600)
	for path, want := range map[string]int{filepath.Join(dir, "missing.json"): pipeline.ExitUsage, bad: pipeline.ExitCannot} {
		err := fleet.MergeSummaryFiles(context.Background(), []string{path}, "", &strings.Builder{}, &strings.Builder{})
		if code := exitCode(err); code != want {
			t.Errorf("%s: exit %d (%v), want %d", filepath.Base(path), code, err, want)
		}
	}
}

func exitCode(err error) int {
	var ee *pipeline.ExitError
	if errors.As(err, &ee) {
		return ee.Code
	}
	return -1
}
