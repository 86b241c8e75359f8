package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestManWritesAPagePerCommand(t *testing.T) {
	t.Parallel()
	dir := filepath.Join(t.TempDir(), "man")
	if code, _, stderr := drip(t, "man", "--dir", dir); code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for page, want := range map[string]string{
		"drip.1":                "drip timestamps every frame",
		"drip-run.1":            "slo",
		"drip-version.1":        "commit",
		"drip-fixtures-serve.1": "scenario",
	} {
		b, err := os.ReadFile(filepath.Join(dir, page))
		if err != nil || !strings.Contains(string(b), ".TH \"DRIP\"") || !strings.Contains(string(b), want) {
			t.Errorf("%s: err %v; want a man page mentioning %q:\n%.300s", page, err, want, b)
		}
	}
}
