package pipeline

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// An output file whose directory is missing or a file, a directory, or a
// file that holds data is a usage error saying what to do; no path, a
// new file, an empty file, a device and, with force, a file that holds
// data pass.
func TestCheckOutPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	empty, full := filepath.Join(dir, "empty"), filepath.Join(dir, "base.jsonl")
	if err := errors.Join(os.WriteFile(empty, nil, 0o600), os.WriteFile(full, []byte("{}\n"), 0o600)); err != nil {
		t.Fatal(err)
	}
	for _, path := range []string{"", filepath.Join(dir, "runs.jsonl"), "runs.jsonl", empty, os.DevNull} {
		if err := CheckOutPath("--out", path, false); err != nil {
			t.Errorf("%q: %v", path, err)
		}
	}
	if err := CheckOutPath("--html", full, true); err != nil {
		t.Errorf("%q with force: %v", full, err)
	}
	for path, want := range map[string]string{
		filepath.Join(dir, "no", "runs.jsonl"): "the directory " + filepath.Join(dir, "no") + " does not exist: create it first (mkdir -p",
		filepath.Join(empty, "runs.jsonl"):     empty + " is a file, not a directory",
		full:                                   "the file exists (3 bytes) and drip replaces none unasked: name another file, or add --force to replace it",
		dir:                                    "a directory: name a file in it",
	} {
		err := CheckOutPath("--out", path, false)
		var ee *ExitError
		if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.HasPrefix(err.Error(), "--out "+path+": ") || !strings.Contains(err.Error(), want) {
			t.Errorf("%q: %v, want a usage error saying %q", path, err, want)
		}
	}
}

// CheckOutputs names the first output it refuses, by its flag.
func TestCheckOutputsNamesTheFlag(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	err := CheckOutputs(false, Output{"--out", filepath.Join(dir, "a.jsonl")}, Output{"--html", filepath.Join(dir, "no", "r.html")})
	if err == nil || !strings.HasPrefix(err.Error(), "--html ") {
		t.Errorf("CheckOutputs = %v, want --html's refusal", err)
	}
}
