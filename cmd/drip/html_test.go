package main

import (
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
)

func TestHTMLOnRunViewCompare(t *testing.T) { synctest.Test(t, testHTMLOnRunViewCompare) }

// --html writes the page beside each command's usual report: a run's and
// a view's with a timeline per stream and its stalls labelled, a
// comparison's with the table side by side.
func testHTMLOnRunViewCompare(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	at := func(name string) string { return filepath.Join(dir, name) }
	for _, c := range []struct {
		args []string
		page string
		want []string
	}{
		{[]string{"run", srv.URL, "-m", "mid-sentence-stall", "--runs", "2", "--out", at("a.jsonl")}, "run.html", []string{`<section class="stream"`, `<i class="pause" aria-label="stall"></i>700`, `id="clocks"`}},
		{[]string{"run", srv.URL, "-m", "steady", "--runs", "3", "--out", at("b.jsonl")}, "b.html", []string{`<section class="stream"`}},
		{[]string{"view", "--no-tui", at("a.jsonl")}, "view.html", []string{`<section class="stream"`, `<i class="pause" aria-label="stall"></i>700`, "2 attempted · 2 admitted · 2 completed"}},
		{[]string{"compare", "--no-tui", at("b.jsonl"), at("a.jsonl")}, "compare.html", []string{`<table id="comparison">`, "A (baseline)", "Δ B"}},
	} {
		code, _, stderr := drip(t, append(c.args, "--html", at(c.page))...)
		if code != exitOK {
			t.Fatalf("%v: exit %d\n%s", c.args, code, stderr)
		}
		page, err := os.ReadFile(at(c.page))
		if err != nil {
			t.Fatal(err)
		}
		for _, want := range c.want {
			if !strings.Contains(string(page), want) {
				t.Errorf("%s lacks %q", c.page, want)
			}
		}
	}
}

// drip replay --html writes the replay beside the recording. Replay dials
// for real, so the fixture server listens on loopback.
func TestHTMLOnReplay(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	page := filepath.Join(t.TempDir(), "replay.html")
	rec := writeRecording(t, "/v1/chat/completions")
	if code, _, stderr := drip(t, "replay", rec, "--against", srv.URL, "--no-tui", "--html", page); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	b, err := os.ReadFile(page)
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`<table id="comparison">`, "A · recorded", "B · replayed", `<section class="stream"`} {
		if !strings.Contains(string(b), want) {
			t.Errorf("replay.html lacks %q", want)
		}
	}
}

// A path --html cannot write fails before anything is measured (exit 2,
// naming the flag, as --out does), and several targets take no --html
// (exit 2).
func TestHTMLRefusals(t *testing.T) {
	t.Parallel()
	missing := filepath.Join(t.TempDir(), "no", "such", "dir", "r.html")
	code, _, stderr := drip(t, "run", "http://127.0.0.1:1", "--runs", "1", "--html", missing)
	if code != exitUsage || !strings.Contains(stderr, "--html "+missing+": the directory") || strings.Contains(stderr, "refused") {
		t.Errorf("unwritable --html: exit %d, stderr %q: want 2 naming --html, before any stream", code, stderr)
	}
	code, _, stderr = drip(t, "run", "http://127.0.0.1:1", "http://127.0.0.1:2", "--html", filepath.Join(t.TempDir(), "r.html"))
	if code != exitUsage || !strings.Contains(stderr, "--html takes one target") {
		t.Errorf("two targets with --html: exit %d, stderr %q", code, stderr)
	}
}
