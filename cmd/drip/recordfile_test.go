package main

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// readers are the commands that read a record file, each given file
// (beside a good one where it needs two). fixtures serve gets an address
// that is taken, so that a file it read would end it (exit 3), not serve.
func readers(t *testing.T, file, good, dir string) [][]string {
	busy, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { busy.Close() })
	return [][]string{
		{"view", "--no-tui", file},
		{"compare", "--no-tui", good, file},
		{"merge", good, file, "--out", filepath.Join(dir, "merged.jsonl")},
		{"replay", file, "--against", "http://127.0.0.1:1", "--no-tui"},
		{"export", "aiperf", file, "--out", filepath.Join(dir, "trace.jsonl")},
		{"fixtures", "serve", "--from", file, "--addr", busy.Addr().String()},
	}
}

// Every command that reads record files reads a hostile one the same way:
// exit 3 (2 for a directory, as for a missing file), one line naming the
// file (and the line, where there is one), the same words in each, and
// nothing of the file's bytes raw.
func TestEveryCommandRefusesAnUnusableRecordFileAlike(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	good := writeRecording(t, "/v1/chat/completions")
	goodLine, err := os.ReadFile(good)
	if err != nil {
		t.Fatal(err)
	}
	files := map[string]struct {
		content, says string
		code          int
	}{
		"empty.jsonl":   {"", "empty.jsonl: no records", exitCannotGo},
		"binary.jsonl":  {"\x1b]52;c;eA==\x07\x00garbage", `binary.jsonl: line 1: not a JSON object: it starts with "\x1b]52;c;eA==\a\x00gar"`, exitCannotGo},
		"twice.jsonl":   {strings.Repeat(strings.Replace(string(goodLine), `"run_id":""`, `"run_id":"r1"`, 1), 2), `twice.jsonl: line 2: the same stream as line 1 (run id "r1"`, exitCannotGo},
		"version.jsonl": {strings.Replace(string(goodLine), `"v":1`, `"v":7`, 1), "version.jsonl: line 1: record version 7: this drip reads version 1", exitCannotGo},
		"dir.jsonl":     {"", "dir.jsonl: a directory, not a file", exitUsage},
	}
	for name, f := range files {
		path := filepath.Join(dir, name)
		if name == "dir.jsonl" {
			err = os.Mkdir(path, 0o700)
		} else {
			err = os.WriteFile(path, []byte(f.content), 0o600)
		}
		if err != nil {
			t.Fatal(err)
		}
		for _, args := range readers(t, path, good, dir) {
			code, stdout, stderr := drip(t, args...)
			if code != f.code || !strings.Contains(stderr, f.says) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 || stdout != "" || strings.ContainsAny(stderr, "\x1b\x07\x00") {
				t.Errorf("drip %s: exit %d, stdout %q, stderr:\n%s\nwant %d and one line saying %q", strings.Join(args[:2], " "), code, stdout, stderr, f.code, f.says)
			}
		}
	}
	missing := filepath.Join(dir, "missing.jsonl") // named as given, without Go's "stat" or "open"
	for _, args := range readers(t, missing, good, dir) {
		if code, _, stderr := drip(t, args...); code != exitUsage || !strings.HasPrefix(stderr, "drip: "+missing+": no such file or directory\n") {
			t.Errorf("drip %s: exit %d, stderr:\n%s\nwant 2 and \"drip: %s: no such file or directory\"", strings.Join(args[:2], " "), code, stderr, missing)
		}
	}
}
