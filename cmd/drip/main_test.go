package main

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

func drip(t *testing.T, args ...string) (code int, stdout, stderr string) {
	t.Helper()
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

func TestRunExitCodesAndOutputs(t *testing.T) { synctest.Test(t, testRunExitCodesAndOutputs) }

func testRunExitCodesAndOutputs(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	out := filepath.Join(dir, "runs.jsonl")
	csvPath := filepath.Join(dir, "runs.csv")

	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "2", "--warmup", "1",
		"--json", "--out", out, "--csv", csvPath, "--fail-if", "ttft.p95 > 1ms")
	if code != exitGate {
		t.Fatalf("exit %d, want %d (gate tripped); stderr:\n%s", code, exitGate, stderr)
	}
	var s stats.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--json output is not one JSON object: %v\n%s", err, stdout)
	}
	if s.Streams.Completed != 2 || s.Streams.Warmup != 1 || s.Metrics["ttft_ms"].N != 2 {
		t.Errorf("streams %+v ttft n %d", s.Streams, s.Metrics["ttft_ms"].N)
	}
	if len(s.Gates) != 1 || !s.Gates[0].Tripped {
		t.Errorf("gates %+v", s.Gates)
	}
	f, err := os.Open(out)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	st, _ := f.Stat()
	if st.Mode().Perm() != 0o600 {
		t.Errorf("--out mode %v, want 0600", st.Mode().Perm())
	}
	recs, skipped, err := record.ReadAll(f, stats.Rederive)
	if err != nil || len(skipped) > 0 || len(recs) != 3 {
		t.Fatalf("records %d skipped %v err %v, want 3", len(recs), skipped, err)
	}
	if recs[0].Phase != record.PhaseWarmup || recs[1].Phase != record.PhaseMeasure {
		t.Errorf("phases %s %s", recs[0].Phase, recs[1].Phase)
	}
	csvData, _ := os.ReadFile(csvPath)
	if lines := strings.Count(string(csvData), "\n"); lines != 4 {
		t.Errorf("csv has %d lines, want header + 3", lines)
	}

	if code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "1", "--fail-if", "ttft.p95 > 60s"); code != exitOK {
		t.Errorf("passing gate: exit %d\n%s", code, stderr)
	}
}

func TestRunTextReportShowsN(t *testing.T) { synctest.Test(t, testRunTextReportShowsN) }

func testRunTextReportShowsN(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	code, stdout, _ := drip(t, "run", srv.URL, "-m", "mid-sentence-stall", "--runs", "1")
	if code != exitOK {
		t.Fatalf("exit %d", code)
	}
	for _, want := range []string{"\nttft ", "\ngap ", " n ", "stalls    2 (1 mid-sentence)", "conventions:", "1 completed"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
}

func TestUsageErrors(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"run"},
		{"run", "http://x", "--fail-if", "nonsense"},
		{"run", "ftp://x"},
		{"run", "http://x", "--runs", "0"},
		{"run", "http://x", "--no-such-flag"},
		{"run", "http://x", "-H", "novalue"},
		{"run", "http://x", "--format", "nope"},
		{"demo", "no-such-scenario"},
	} {
		if code, _, stderr := drip(t, args...); code != exitUsage || stderr == "" {
			t.Errorf("%v: exit %d stderr %q, want %d with a message", args, code, stderr, exitUsage)
		}
	}
	// The message names the flag (an unknown format did not say --format).
	if _, _, stderr := drip(t, "run", "http://x", "--format", "nope"); !strings.Contains(stderr, "--format") {
		t.Errorf("--format nope: %q does not name the flag", stderr)
	}
}

// A wrong number of arguments is a usage error that shows the command's
// usage line and points at its help.
func TestArgumentCountErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"view"}, "usage: drip view FILE.jsonl"},
		{[]string{"view", "a.jsonl", "b.jsonl"}, "see 'drip view --help'"},
		{[]string{"watch"}, "usage: drip watch URL"},
		{[]string{"export", "aiperf"}, "see 'drip export aiperf --help'"},
		{[]string{"version", "x"}, "usage: drip version"},
	} {
		code, _, stderr := drip(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d stderr %q, want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}

func TestRunUnreachableCannotGo(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	u := srv.URL
	srv.Close()
	code, stdout, stderr := drip(t, "run", u, "--runs", "1")
	if code != exitCannotGo {
		t.Fatalf("exit %d, want %d\n%s", code, exitCannotGo, stderr)
	}
	// The report still accounts for the failed stream.
	if !strings.Contains(stdout, "1 failed (refused 1)") {
		t.Errorf("report:\n%s", stdout)
	}
}

// readRecords reads a record file a command wrote: an unreadable file or
// a bad line (but a cut-short last one) fails the test.
func readRecords(t *testing.T, path string) []*record.Record {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	recs, _, err := record.ReadAll(f, stats.Rederive)
	if err != nil {
		t.Fatal(err)
	}
	return recs
}
