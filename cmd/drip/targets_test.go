package main

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
)

// TestTargetsPairing checks how -m pairs with URLs: once for all, once per
// URL in order, several with one URL (a target per model), and a clear
// usage error otherwise.
func TestTargetsPairing(t *testing.T) {
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
		f := requestFlags{models: c.models, format: "auto", timeout: 1, idleTimeout: 1, connect: 1, stall: 1, maxFrames: 1, maxBytes: "1"}
		ts, err := f.targets(c.urls)
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
	f := requestFlags{models: []string{"x", "y"}, format: "auto", timeout: 1, idleTimeout: 1, connect: 1, stall: 1, maxFrames: 1, maxBytes: "1"}
	if _, err := f.targets([]string{"http://a", "http://b", "http://c"}); err == nil || !strings.Contains(err.Error(), "-m given 2 times for 3 URLs") {
		t.Errorf("2 models for 3 URLs: %v", err)
	}
	if code, _, stderr := drip(t, "watch", "http://a", "--alternate"); code != exitUsage || !strings.Contains(stderr, "--alternate") {
		t.Errorf("--alternate with one target: exit %d %q", code, stderr)
	}
	if code, _, stderr := drip(t, "run", "http://a", "-m", "x", "-m", "y"); code != exitUsage || !strings.Contains(stderr, "-m given 2 times") {
		t.Errorf("run with two models: exit %d %q", code, stderr)
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
		f, err := os.Open(path)
		if err != nil {
			t.Fatal(err)
		}
		recs, _, err := probe.ReadRecords(f)
		f.Close()
		if err != nil || len(recs) != 1 || recs[0].Model != model {
			t.Errorf("%s: %d records (%v), want one of %s", path, len(recs), err, model)
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
