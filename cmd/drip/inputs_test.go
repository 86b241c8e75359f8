package main

import (
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
)

// An input file that cannot be read — here a directory, which opens but
// holds nothing — is a usage error in every command, as a missing one is
// (docs/security.md, Exit codes): exit 2 naming it, nothing sent.
func TestAnUnreadableInputFileIsExit2InEveryCommand(t *testing.T) {
	t.Parallel()
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
	t.Parallel()
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

// sparse is a file of n bytes that takes no disk: every byte a zero.
func sparse(t *testing.T, name string, n int64) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	if err := f.Truncate(n); err != nil {
		t.Fatal(err)
	}
	return path
}

// Every file a flag names whole is held to its kind's limit, refused
// before it is read with exit 2 and an error naming the flag, the file,
// the limit and the kind: a 1 GiB config once cost 5.3 GB, and --body and
// --prompt-file sent whatever they were given.
func TestEveryUserFileIsHeldToItsKindsLimit(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); http.NotFound(w, r) }))
	defer srv.Close()
	body := sparse(t, "big.json", 32<<20+1)
	for _, c := range []struct {
		args []string
		says string
	}{
		{[]string{"run", "--config", sparse(t, "big.toml", 1<<20+1)}, "--config " + "%s: over the size limit: more than 1 MiB, the most drip reads of a config file"},
		{[]string{"run", srv.URL, "--body", body}, "--body %s: over the size limit: more than 32 MiB, the most drip reads of a request body"},
		{[]string{"run", srv.URL, "-d", "@" + body}, "-d @%s: over the size limit: more than 32 MiB"},
		{[]string{"run", srv.URL, "--prompt-file", sparse(t, "big.txt", 32<<20+1)}, "--prompt-file: %s: over the size limit: more than 32 MiB, the most drip reads of a prompt file"},
		{[]string{"merge", "--summaries", sparse(t, "big.json", 64<<20+1)}, "--summaries %s: over the size limit: more than 64 MiB, the most drip reads of a summary"},
	} {
		file := strings.TrimPrefix(c.args[len(c.args)-1], "@")
		code, _, stderr := drip(t, c.args...)
		if want := fmt.Sprintf(c.says, file); code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%v: exit %d %q; want 2 saying %q", c.args[:2], code, stderr, want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests went out for a file past its limit", n)
	}
}

// A device, a FIFO with no writer or an endless stdin is refused at once
// (exit 2): read whole, /dev/zero took RSS to 18.8 GB and a FIFO blocked
// for ever.
func TestUserFilesThatNeverEndAreRefusedAtOnce(t *testing.T) {
	t.Parallel()
	fifo := filepath.Join(t.TempDir(), "fifo")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	saved := stdin
	t.Cleanup(func() { stdin = saved })
	stdin = endlessZeros{}
	for _, path := range []string{"/dev/zero", fifo} {
		for _, args := range [][]string{
			{"run", "--config", path},
			{"run", "http://127.0.0.1:9/", "--body", path},
			{"run", "http://127.0.0.1:9/", "-d", "@" + path},
			{"run", "http://127.0.0.1:9/", "--prompt-file", path},
			{"merge", "--summaries", path, path},
		} {
			if code, _, stderr := drip(t, args...); code != exitUsage || !strings.Contains(stderr, path+": not a regular file") {
				t.Errorf("%v: exit %d %q; want 2 saying it is not a regular file", args, code, stderr)
			}
		}
	}
	if code, _, stderr := drip(t, "run", "http://127.0.0.1:9/", "-d", "-"); code != exitUsage || !strings.Contains(stderr, "-d -: stdin: over the size limit: more than 32 MiB") {
		t.Errorf("-d - from an endless stdin: exit %d %q; want 2 at the 32 MiB limit", code, stderr)
	}
}

// endlessZeros is /dev/zero as stdin.
type endlessZeros struct{}

func (endlessZeros) Read(p []byte) (int, error) {
	clear(p)
	return len(p), nil
}
