package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
)

// countRequests serves the fixture scenarios and counts the requests
// that reached it.
func countRequests(n *atomic.Int64) http.Handler {
	h := fixtures.NewServer()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n.Add(1)
		h.ServeHTTP(w, r)
	})
}

// drip run --out onto a baseline refuses it, naming it, before a request
// is sent, and leaves it as it was; --force replaces it.
func TestRunOutRefusesAnExistingFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent atomic.Int64
		srv := serveInMemory(t, countRequests(&sent))
		base := filepath.Join(t.TempDir(), "base.jsonl")
		if code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "-n", "3", "--out", base); code != exitOK {
			t.Fatalf("first run: exit %d\n%s", code, stderr)
		}
		before, _ := os.ReadFile(base)
		sent.Store(0)
		code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "-n", "1", "--out", base)
		after, _ := os.ReadFile(base)
		if code != exitUsage || !strings.Contains(stderr, "--out "+base+": the file exists") || !strings.Contains(stderr, "--force") {
			t.Errorf("--out onto a baseline: exit %d, stderr:\n%s\nwant exit 2 naming the file and --force", code, stderr)
		}
		if string(after) != string(before) || sent.Load() != 0 {
			t.Errorf("the baseline changed (%d → %d bytes) or %d requests were sent", len(before), len(after), sent.Load())
		}
		if code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "-n", "1", "--out", base, "--force"); code != exitOK {
			t.Fatalf("--force: exit %d\n%s", code, stderr)
		}
		if recs := readRecords(t, base); len(recs) != 1 {
			t.Errorf("--force: %d records in the file, want the new run's 1", len(recs))
		}
	})
}

// One mistake, one code and one tone: --out, --csv and --html into a
// missing directory are each exit 2 with the same words, before any
// request.
func TestOutputsIntoAMissingDirectoryAreOneMistake(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var sent atomic.Int64
		srv := serveInMemory(t, countRequests(&sent))
		missing := filepath.Join(t.TempDir(), "no")
		for _, flag := range []string{"--out", "--csv", "--html"} {
			path := filepath.Join(missing, "r")
			code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "-n", "1", flag, path)
			want := flag + " " + path + ": the directory " + missing + " does not exist: create it first (mkdir -p " + missing + ")"
			if code != exitUsage || !strings.Contains(stderr, want) {
				t.Errorf("%s into a missing directory: exit %d, stderr:\n%s\nwant exit 2 saying %q", flag, code, stderr, want)
			}
		}
		if sent.Load() != 0 {
			t.Errorf("%d requests sent, want none", sent.Load())
		}
	})
}

// Every command that writes a file refuses one that holds data, exit 2
// naming the flag and the file, and takes --force.
func TestEveryOutputRefusesAnExistingFile(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		dir := t.TempDir()
		recs := filepath.Join(dir, "recs.jsonl")
		if code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "-n", "2", "--out", recs); code != exitOK {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
		taken := filepath.Join(dir, "taken")
		if err := os.WriteFile(taken, []byte("keep me\n"), 0o600); err != nil {
			t.Fatal(err)
		}
		for _, c := range []struct {
			flag string
			args []string
		}{
			{"--csv", []string{"run", srv.URL, "-m", "steady", "-n", "1"}},
			{"--html", []string{"run", srv.URL, "-m", "steady", "-n", "1"}},
			{"--out", []string{"watch", "--no-tui", srv.URL, "-m", "steady"}},
			{"--out", []string{"demo", "steady", "--no-tui"}},
			{"--html", []string{"view", recs, "--no-tui"}},
			{"--html", []string{"compare", recs, recs, "--no-tui"}},
			{"--out", []string{"merge", recs, recs}},
			{"--out", []string{"export", "aiperf", recs}},
			{"--out", []string{"record", "--upstream", srv.URL, "--listen", "127.0.0.1:0"}},
			{"--html", []string{"replay", recs, "--against", srv.URL, "--no-tui"}},
		} {
			code, _, stderr := drip(t, append(c.args, c.flag, taken)...)
			if code != exitUsage || !strings.Contains(stderr, c.flag+" "+taken+": the file exists") {
				t.Errorf("%v %s onto a file: exit %d, stderr:\n%s", c.args, c.flag, code, stderr)
			}
			if b, _ := os.ReadFile(taken); string(b) != "keep me\n" {
				t.Fatalf("%v %s: the file changed", c.args, c.flag)
			}
		}
		if code, _, stderr := drip(t, "view", recs, "--no-tui", "--html", taken, "--force"); code != exitOK {
			t.Errorf("view --html --force: exit %d\n%s", code, stderr)
		}
	})
}
