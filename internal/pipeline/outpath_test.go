package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output file whose directory is missing or a file is a usage error
// saying what to do; no path, or one in a directory, passes.
func TestCheckOutPath(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "f")
	if err := os.WriteFile(file, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", filepath.Join(dir, "runs.jsonl"), "runs.jsonl"} {
		if err := CheckOutPath("--out", path); err != nil {
			t.Errorf("%q: %v", path, err)
		}
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "no", "runs.jsonl"): "the directory " + filepath.Join(dir, "no") + " does not exist: create it first (mkdir -p",
		filepath.Join(file, "runs.jsonl"):      file + " is a file, not a directory",
	} {
		err := CheckOutPath("--out", path)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.HasPrefix(err.Error(), "--out "+path+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want a usage error saying %q", path, err, want)
		}
	}
}
