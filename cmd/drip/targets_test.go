package main

import (
	"context"
	"encoding/json"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
)

// TestTargetsPairing checks how -m pairs with URLs: once for all, once per
// URL in order, several with one URL (a target per model), and a clear
// usage error otherwise.
func TestTargetsPairing(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		urls, models []string
		want         []string // "model@host" per target
		names        []string
	}{
		{[]string{"http://a:1", "http://b:2"}, nil, []string{"@a:1", "@b:2"}, []string{"a:1", "b:2"}},
		{[]string{"http://a:1", "http://b:2"}, []string{"m"}, []string{"m@a:1", "m@b:2"}, []string{"a:1", "b:2"}},
		{[]string{"http://a:1", "http://b:2"}, []string{"x", "y"}, []string{"x@a:1", "y@b:2"}, []string{"a:1 x", "b:2 y"}},
		{[]string{"http://a:1"}, []string{"x", "y", "z"}, []string{"x@a:1", "y@a:1", "z@a:1"}, []string{"x", "y", "z"}},
	} {
		f := requestFlags{models: c.models, format: "auto", timeout: 1, idleTimeout: 1, connect: 1, stall: 1, bounds: boundFlags{frames: 1, bytes: "1"}}
		ts, err := f.targets(context.Background(), c.urls)
		if err != nil {
			t.Fatalf("%v %v: %v", c.urls, c.models, err)
		}
		var got, names []string
		for _, tg := range ts {
			got = append(got, tg.t.Request.Model+"@"+strings.Split(strings.TrimPrefix(tg.t.URL, "http://"), "/")[0])
			names = append(names, tg.name)
		}
		if !reflect.DeepEqual(got, c.want) || !reflect.DeepEqual(names, c.names) {
			t.Errorf("%v %v: targets %v named %v, want %v named %v", c.urls, c.models, got, names, c.want, c.names)
		}
	}
	f := requestFlags{models: []string{"x", "y"}, format: "auto", timeout: 1, idleTimeout: 1, connect: 1, stall: 1, bounds: boundFlags{frames: 1, bytes: "1"}}
	if _, err := f.targets(context.Background(), []string{"http://a", "http://b", "http://c"}); err == nil || !strings.Contains(err.Error(), "-m given 2 times for 3 URLs") {
		t.Errorf("2 models for 3 URLs: %v", err)
	}
	if code, _, stderr := drip(t, "watch", "http://a", "--alternate"); code != exitUsage || !strings.Contains(stderr, "--alternate") {
		t.Errorf("--alternate with one target: exit %d %q", code, stderr)
	}
	if code, _, stderr := drip(t, "calibrate", "-m", "x", "-m", "y"); code != exitUsage {
		t.Errorf("calibrate with two models: exit %d %q", code, stderr)
	}
}

// TestWatchTargetsHeadless races two fixture targets without a terminal:
// one record file per target, each target's summary, then the comparison.
func TestWatchTargetsHeadless(t *testing.T) { synctest.Test(t, testWatchTargetsHeadless) }

func testWatchTargetsHeadless(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	out := filepath.Join(dir, "w.jsonl")
	code, stdout, stderr := drip(t, "watch", srv.URL, "-m", "steady", "-m", "mid-sentence-stall", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for i, model := range []string{"steady", "mid-sentence-stall"} {
		path := filepath.Join(dir, "w-"+string(rune('A'+i))+".jsonl")
		if recs := readRecords(t, path); len(recs) != 1 || recs[0].Model != model {
			t.Errorf("%s: %d records, want one of %s", path, len(recs), model)
		}
	}
	for _, want := range []string{"── A steady ──", "── B mid-sentence-stall ──", "drip compare · 2 runs · baseline A", "stalls    2 (1 mid-sentence)"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if a, b := strings.Index(stdout, "── B"), strings.Index(stdout, "drip compare"); a < 0 || b < a {
		t.Errorf("the comparison should follow the summaries:\n%s", stdout)
	}
}

// TestRunTargetsHeadless runs one workload against two fixture targets,
// interleaved: every target gets its --runs, numbered from 0 in its own
// file, and the report is each summary, then the comparison.
func TestRunTargetsHeadless(t *testing.T) { synctest.Test(t, testRunTargetsHeadless) }

func testRunTargetsHeadless(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	out := filepath.Join(dir, "r.jsonl")
	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "steady", "-m", "mid-sentence-stall", "--runs", "3", "--concurrency", "2", "--warmup", "1", "--out", out)
	if code != 0 {
		t.Fatalf("exit %d: %s", code, stderr)
	}
	for i, model := range []string{"steady", "mid-sentence-stall"} {
		path := filepath.Join(dir, "r-"+string(rune('A'+i))+".jsonl")
		recs := readRecords(t, path)
		var seqs []int
		measured := 0
		for _, r := range recs {
			if r.Model != model {
				t.Errorf("%s: a record of %s", path, r.Model)
			}
			seqs = append(seqs, r.Seq)
			if r.Phase == record.PhaseMeasure {
				measured++
			}
		}
		// One warmup in the first turn, then turns of two until three are measured.
		if measured != 3 || len(recs) != 4 || !reflect.DeepEqual(sortedInts(seqs), []int{0, 1, 2, 3}) {
			t.Errorf("%s: %d records, %d measured, seqs %v; want 4, 3, 0–3", path, len(recs), measured, seqs)
		}
	}
	for _, want := range []string{"── A steady ──", "── B mid-sentence-stall ──", "interleaved with 1 other target in turns of 2", "drip compare · 2 runs · baseline A"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("no %q in\n%s", want, stdout)
		}
	}
	if !strings.Contains(stderr, "\n  A #1 ") {
		t.Errorf("progress lines do not name their target:\n%s", stderr)
	}
	if code, _, stderr := drip(t, "run", srv.URL, srv.URL, "--rate", "2"); code != exitUsage || !strings.Contains(stderr, "--rate takes one target") {
		t.Errorf("--rate with two targets: exit %d %q", code, stderr)
	}
}

func sortedInts(v []int) []int {
	out := append([]int(nil), v...)
	slices.Sort(out)
	return out
}

// Several targets without --seed share one seed: the same synthetic
// prompts go to each, so the targets are compared on one workload.
func TestRunTargetsShareSyntheticPrompts(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		out := filepath.Join(t.TempDir(), "r.jsonl")
		code, _, stderr := drip(t, "run", srv.URL, "-m", "fast", "-m", "steady", "--runs", "2", "--input-tokens", "40±10", "--out", out, "--keep-request")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		prompts := func(path string) (texts []string) { // the prompts sent, by --keep-request
			for _, r := range readRecords(t, path) {
				var body struct {
					Messages []struct{ Content string } `json:"messages"`
				}
				if err := json.Unmarshal(r.Request, &body); err != nil || len(body.Messages) != 1 {
					t.Fatalf("%s: request %s: %v", path, r.Request, err)
				}
				texts = append(texts, body.Messages[0].Content)
			}
			slices.Sort(texts)
			return texts
		}
		a, b := prompts(strings.Replace(out, "r.jsonl", "r-A.jsonl", 1)), prompts(strings.Replace(out, "r.jsonl", "r-B.jsonl", 1))
		if len(a) != 2 || !slices.Equal(a, b) {
			t.Errorf("target A sent prompts %v, B %v: want the same synthetic prompts", a, b)
		}
	})
}
