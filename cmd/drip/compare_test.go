package main

import (
	"encoding/json"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/pipeline"
)

// Record files drip wrote against the fixture server (compare/testdata).
func recordFile(name string) string {
	return filepath.Join("..", "..", "compare", "testdata", name)
}

func TestCompareExitCodes(t *testing.T) {
	t.Parallel()
	steady, stall := recordFile("steady.jsonl"), recordFile("stall.jsonl")
	for _, c := range []struct {
		name   string
		args   []string
		code   int
		stdout string
		stderr string
	}{
		{"report", []string{steady, stall}, exitOK, "baseline A", ""},
		{"no tui", []string{steady, stall, "--no-tui"}, exitOK, "baseline A", ""},
		{"relative gate trips", []string{steady, stall, "--fail-if", "gap.p99 > +20ms"}, exitGate, "FAIL B  gap.p99 > +20ms", ""},
		{"relative gate passes", []string{steady, stall, "--fail-if", "e2e.p50 > +200%"}, exitOK, "ok   B  e2e.p50 > +200%", ""},
		{"absolute gate", []string{steady, stall, "--fail-if", "failed > 0"}, exitOK, "failed = 0: passed", ""},
		{"labels", []string{steady, stall, "--label", "before", "--label", "after"}, exitOK, "B  after · 6 measured", ""},
		{"markdown", []string{steady, stall, "--markdown"}, exitOK, "| metric | A | B | Δ B |", ""},
		{"cut short", []string{steady, recordFile("stall-cut.jsonl")}, exitOK, "1 partial line(s) skipped", "stall-cut.jsonl: line 6: partial record skipped"},
		{"one file", []string{steady}, exitUsage, "", "compare needs two or more record files"},
		{"labels miscounted", []string{steady, stall, "--label", "x"}, exitUsage, "", "--label given once for 2 files"},
		{"json and markdown", []string{steady, stall, "--json", "--markdown"}, exitUsage, "", "pick one"},
		{"a record label k=v is no run name", []string{steady, stall, "--label", "region=eu", "--label", "b=2"}, exitUsage, "", `--label "region=eu": in compare, --label names a run`},
		{"one record label k=v for two files", []string{steady, stall, "--label", "env=prod"}, exitUsage, "", `--label "env=prod": in compare, --label names a run (e.g. --label main --label pr); a key=value is drip run's record label: compare by it with --by env`},
		{"bad gate", []string{steady, stall, "--fail-if", "ttft.p95 > 10%"}, exitUsage, "", "relative gates"},
		{"missing file", []string{steady, "nope.jsonl"}, exitUsage, "", "nope.jsonl"}, // as in every command
	} {
		code, stdout, stderr := drip(t, append([]string{"compare"}, c.args...)...)
		if code != c.code || !strings.Contains(stdout, c.stdout) || !strings.Contains(stderr, c.stderr) {
			t.Errorf("%s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", c.name, code, c.code, stdout, stderr)
		}
	}
}

func TestCompareJSON(t *testing.T) {
	t.Parallel()
	code, stdout, stderr := drip(t, "compare", recordFile("steady.jsonl"), recordFile("stall.jsonl"), "--json")
	if code != exitOK {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	var out struct {
		Runs []struct {
			Label  string            `json:"label"`
			Deltas []json.RawMessage `json:"deltas"`
		} `json:"runs"`
	}
	if err := json.Unmarshal([]byte(stdout), &out); err != nil {
		t.Fatalf("--json is not one JSON object: %v", err)
	}
	if len(out.Runs) != 2 || out.Runs[0].Label != "steady.jsonl" || len(out.Runs[1].Deltas) == 0 {
		t.Errorf("runs %+v", out.Runs)
	}
}

// A gate on a metric one run has no samples of fails, and says why.
func TestCompareGateWithoutSamples(t *testing.T) { synctest.Test(t, testCompareGateWithoutSamples) }

func testCompareGateWithoutSamples(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	limited := filepath.Join(t.TempDir(), "limited.jsonl")
	drip(t, "run", srv.URL, "-m", "rate-limited", "--runs", "2", "--out", limited)
	code, stdout, stderr := drip(t, "compare", recordFile("steady.jsonl"), limited, "--fail-if", "ttft.p95 > +10%")
	if code != exitGate || !strings.Contains(stdout, "ttft.p95 has no samples in this run: the gate cannot pass") {
		t.Errorf("exit %d, want %d with a clear message\nstdout:\n%s\nstderr:\n%s", code, exitGate, stdout, stderr)
	}
}

// TestCheckCompareRefusesFlagsThatDoNotGoTogether shows each refusal is a
// usage error (exit 2) naming the flags, and files named by --label one
// each pass.
func TestCheckCompareRefusesFlagsThatDoNotGoTogether(t *testing.T) {
	t.Parallel()
	two := []string{"a.jsonl", "b.jsonl"}
	for _, tc := range []struct {
		paths []string
		f     compareFlags
		want  string
	}{
		{paths: two, f: compareFlags{labels: []string{"main", "pr"}}},
		{paths: two, f: compareFlags{labels: []string{"env=prod"}}, want: `--label "env=prod": in compare, --label names a run (e.g. --label main --label pr); a key=value is drip run's record label: compare by it with --by env`},
		{paths: two[:1], want: "compare needs two or more record files (or --by KEY to split one)"},
		{paths: two[:1], f: compareFlags{by: "host", labels: []string{"x"}}, want: "--label names files and --by makes the groups: pick one"},
		{paths: two, f: compareFlags{labels: []string{"x"}}, want: "--label given once for 2 files: name every run or none"},
		{paths: two, f: compareFlags{asJSON: true, markdown: true}, want: "--json and --markdown both write to stdout: pick one"},
	} {
		err := checkCompare(tc.paths, &tc.f)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v %v: %v, want no error", tc.paths, tc.f.labels, err)
			}
			continue
		}
		var ee *pipeline.ExitError
		if err == nil || err.Error() != tc.want || !errors.As(err, &ee) || ee.Code != exitUsage {
			t.Errorf("%v %v: %v, want usage error %q", tc.paths, tc.f.labels, err, tc.want)
		}
	}
}
