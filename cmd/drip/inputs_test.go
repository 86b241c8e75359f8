package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
)

// An input file that cannot be read — here a directory, which opens but
// holds nothing — is a usage error in every command, as a missing one is
// (docs/security.md, Exit codes): exit 2 naming it, nothing sent.
func TestAnUnreadableInputFileIsExit2InEveryCommand(t *testing.T) {
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); http.NotFound(w, r) }))
	defer srv.Close()
	dir := filepath.Join(t.TempDir(), "dir.jsonl")
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"view", dir, "--no-tui"},
		{"compare", dir, dir, "--no-tui"},
		{"merge", dir, dir, "--out", filepath.Join(t.TempDir(), "m.jsonl")},
		{"export", "aiperf", dir},
		{"replay", dir, "--against", srv.URL},
		{"fixtures", "serve", "--from", dir, "--addr", "127.0.0.1:0"},
		{"run", srv.URL, "--body", dir},
		{"run", srv.URL, "-d", "@" + dir},
		{"run", srv.URL, "--prompt-file", dir},
	} {
		code, _, stderr := drip(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "dir.jsonl") {
			t.Errorf("%v: exit %d %q; want 2 naming the file", args, code, stderr)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests went out for an unreadable input", n)
	}
}

// drip merge's --out is required for records and optional with
// --summaries (stdout), and its --help says so: it once said "default:
// stdout" while a record merge without --out was refused.
func TestMergeOutIsWhatItsHelpSays(t *testing.T) {
	usage := newRoot().Commands()
	var help string
	for _, c := range usage {
		if c.Name() == "merge" {
			help = c.Flags().Lookup("out").Usage
		}
	}
	if !strings.Contains(help, "required when merging records") || !strings.Contains(help, "with --summaries the merged summary, stdout when --out is not given") {
		t.Errorf("merge --out's help: %q; want it required for records, stdout only with --summaries", help)
	}
	steady := recordFile("steady.jsonl")
	if code, stdout, stderr := drip(t, "merge", steady, steady); code != exitUsage || stdout != "" || !strings.Contains(stderr, "--out") {
		t.Errorf("merge without --out: exit %d, %d bytes on stdout, %q; want 2 naming --out", code, len(stdout), stderr)
	}
}
