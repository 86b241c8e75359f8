package pipeline

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// A baseline's gates may be relative; a bad one is exit 2 naming --fail-if.
func TestParseBaselineGates(t *testing.T) {
	gs, err := ParseBaselineGates([]string{"ttft.p95 > +10%", "failed > 0"})
	if err != nil || len(gs) != 2 || !gs[0].Relative || gs[1].Metric != "failed" {
		t.Fatalf("gates %+v, %v", gs, err)
	}
	_, err = ParseBaselineGates([]string{"failed > 0", "nonsense"})
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.HasPrefix(err.Error(), `--fail-if: gate "nonsense"`) {
		t.Errorf("a bad gate: %v, want exit 2 naming --fail-if", err)
	}
}

// CompareFiles names runs by their files unless told, groups by a field,
// and says a missing file (exit 2) as Read does.
func TestCompareFiles(t *testing.T) {
	steady, stall := filepath.Join("..", "..", "compare", "testdata", "steady.jsonl"), filepath.Join("..", "..", "compare", "testdata", "stall.jsonl")
	c, levels, err := CompareFiles([]string{steady, stall}, nil, "", nil, io.Discard)
	if err != nil || len(c.Runs) != 2 || c.Runs[0].Label != "steady.jsonl" || c.Runs[1].Label != "stall.jsonl" || levels != nil {
		t.Fatalf("runs %v, levels %v, %v", c, levels, err)
	}
	if c, _, err = CompareFiles([]string{steady, stall}, []string{"a", "b"}, "", nil, io.Discard); err != nil || c.Runs[1].Label != "b" {
		t.Errorf("labels given: %v", err)
	}
	if c, _, err = CompareFiles([]string{steady, stall}, nil, "model", nil, io.Discard); err != nil || len(c.Runs) != 2 {
		t.Errorf("--by model: %v", err)
	}
	_, _, err = CompareFiles([]string{steady, "missing.jsonl"}, nil, "", nil, io.Discard)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), "missing.jsonl") {
		t.Errorf("a missing file: %v, want exit 2 naming it", err)
	}
}

// TestCheckCompareRefusesFlagsThatDoNotGoTogether: each refusal is a usage
// error (exit 2) naming the flags; files named by --label one each pass.
func TestCheckCompareRefusesFlagsThatDoNotGoTogether(t *testing.T) {
	two := []string{"a.jsonl", "b.jsonl"}
	for _, tc := range []struct {
		paths, labels []string
		by            string
		json, md      bool
		want          string
	}{
		{paths: two, labels: []string{"main", "pr"}},
		{paths: two, labels: []string{"env=prod"}, want: `--label "env=prod": in compare, --label names a run (e.g. --label main --label pr); a key=value is drip run's record label: compare by it with --by env`},
		{paths: two[:1], want: "compare needs two or more record files (or --by KEY to split one)"},
		{paths: two[:1], by: "host", labels: []string{"x"}, want: "--label names files and --by makes the groups: pick one"},
		{paths: two, labels: []string{"x"}, want: "--label given once for 2 files: name every run or none"},
		{paths: two, json: true, md: true, want: "--json and --markdown both write to stdout: pick one"},
	} {
		err := CheckCompare(tc.paths, tc.labels, tc.by, tc.json, tc.md)
		if tc.want == "" {
			if err != nil {
				t.Errorf("%v %v: %v, want no error", tc.paths, tc.labels, err)
			}
			continue
		}
		var ee *ExitError
		if err == nil || err.Error() != tc.want || !errors.As(err, &ee) || ee.Code != ExitUsage {
			t.Errorf("%v %v: %v, want usage error %q", tc.paths, tc.labels, err, tc.want)
		}
	}
}
