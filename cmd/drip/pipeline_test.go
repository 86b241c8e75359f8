package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/fixtures"
)

// Every command that writes records or results, given a file that cannot
// be written (/dev/full: ENOSPC on every write), fails with exit 3 and
// names the flag, instead of exiting 0 with the data lost.
func TestFailedWriteIsExit3InEveryCommand(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	fx := httptest.NewServer(fixtures.NewServer())
	defer fx.Close()
	dir := t.TempDir()
	recs, sum := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "s.json")
	if code, stdout, stderr := drip(t, "run", fx.URL, "-m", "steady", "--runs", "2", "--out", recs, "--json"); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	} else if err := os.WriteFile(sum, []byte(stdout), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		flag string
	}{
		{[]string{"run", fx.URL, "-m", "steady", "--runs", "2", "--csv", "/dev/full"}, "--csv"},
		{[]string{"run", fx.URL, "-m", "steady", "--concurrency", "1,2", "--runs-per-level", "2", "--out", "/dev/full"}, "--out"},
		{[]string{"run", fx.URL, fx.URL, "-m", "steady", "--runs", "1", "--csv", "/dev/full"}, "--csv"},
		{[]string{"watch", fx.URL, "-m", "steady", "--no-tui", "--out", "/dev/full"}, "--out"},
		{[]string{"watch", fx.URL, fx.URL, "-m", "steady", "--no-tui", "--csv", "/dev/full"}, "--csv"},
		{[]string{"demo", "steady", "--no-tui", "--out", "/dev/full"}, "--out"},
		{[]string{"merge", recs, "--out", "/dev/full"}, "--out"},
		{[]string{"merge", "--summaries", sum, "--out", "/dev/full"}, "--out"},
	} {
		code, _, stderr := drip(t, tc.args...)
		if code != exitCannotGo || !strings.Contains(stderr, tc.flag+": ") || !strings.Contains(stderr, "no space left") {
			t.Errorf("%s: exit %d, stderr:\n%s\nwant 3 naming %s and the full disk", strings.Join(tc.args[:1], " "), code, stderr, tc.flag)
		}
	}
}

// A record or summary file given to read that is not there is the
// caller's mistake: exit 2 naming it, merge --summaries as every other.
func TestMissingSummaryIsUsage(t *testing.T) {
	t.Parallel()
	code, _, stderr := drip(t, "merge", "--summaries", filepath.Join(t.TempDir(), "missing.json"))
	if code != exitUsage || !strings.Contains(stderr, "missing.json") {
		t.Errorf("exit %d %q; want 2 naming the file", code, stderr)
	}
}
