package main

import (
	"encoding/json"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
)

// secretTarget is a target as an old or hand-made record file may hold
// it: a key in its user info, its query and its fragment.
const secretTarget = "http://alice:sk-USERINFO-1@127.0.0.1:9/v1/chat/completions?key=sk-QUERY-2&alt=sse#sk-FRAGMENT-3"

// targetSecrets are the parts of secretTarget no output may show.
var targetSecrets = []string{"alice", "sk-USERINFO", "sk-QUERY", "sk-FRAGMENT"}

// secretTargetFiles writes two record files of a real run on loopback,
// their target set to secretTarget, and a recording of the same for
// replay; the records keep everything else drip run wrote.
func secretTargetFiles(t *testing.T) (a, b, rec string) {
	t.Helper()
	srv := httptest.NewServer(fixtures.NewServer())
	t.Cleanup(srv.Close)
	dir := t.TempDir()
	ran := filepath.Join(dir, "ran.jsonl")
	if code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "2", "--out", ran); code != exitOK {
		t.Fatalf("drip run: exit %d\n%s", code, stderr)
	}
	recs := readRecords(t, ran)
	for _, r := range recs {
		r.Target = secretTarget
	}
	a, b = filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, p := range []string{a, b} {
		if err := writeRaw(p, recs); err != nil {
			t.Fatal(err)
		}
		if i := strings.Index(readFile(t, p), "sk-QUERY-2"); i < 0 {
			t.Fatal("the hand-made file does not hold the secret target")
		}
	}
	rec = writeRecording(t, "/v1/chat/completions", "/v1/chat/completions")
	recRecs := readRecords(t, rec)
	for _, r := range recRecs {
		r.Target = secretTarget
	}
	if err := writeRaw(rec, recRecs); err != nil {
		t.Fatal(err)
	}
	return a, b, rec
}

// writeRaw writes recs as they are, as a hand-made file would hold them.
func writeRaw(path string, recs []*record.Record) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	w := record.NewWriter(f)
	for _, r := range recs {
		if err := w.Write(r); err != nil {
			return err
		}
	}
	return w.Close()
}

func readFile(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// A record's target holding credentials (user info, a secret query value,
// a fragment) is printed by no command, whatever file it came from: every
// output, text, JSON, Markdown, the HTML report, merge's files and the
// screens' headers, shows it through the one URL rule. view, compare,
// replay, the HTML, the screens and merge printed it as stored.
func TestARecordsTargetIsRedactedInEveryOutput(t *testing.T) {
	t.Parallel()
	a, b, rec := secretTargetFiles(t)
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	dir := t.TempDir()
	html, merged, summary := filepath.Join(dir, "r.html"), filepath.Join(dir, "m.jsonl"), filepath.Join(dir, "s.json")
	outputs := map[string]string{}
	for _, args := range [][]string{
		{"view", "--no-tui", a},
		{"view", "--json", a},
		{"view", "--no-tui", a, "--html", html},
		{"compare", "--no-tui", a, b},
		{"compare", "--json", a, b},
		{"compare", "--markdown", a, b},
		{"merge", a, "--out", merged},
		{"replay", rec, "--against", srv.URL, "--no-tui"},
		{"replay", rec, "--against", srv.URL, "--json"},
		{"replay", rec, "--against", srv.URL, "--markdown"},
	} {
		_, stdout, stderr := drip(t, args...)
		outputs["drip "+strings.Join(args[:2], " ")] = stdout + stderr
	}
	outputs["--html"], outputs["merge --out"] = readFile(t, html), readFile(t, merged)
	outputs["the screens"] = strings.Join(screens(t, readRecords(t, a), readRecords(t, b)), "\n")
	outputs["merge --summaries"] = mergedSummaries(t, a, summary)
	for name, out := range outputs {
		for _, s := range targetSecrets {
			if strings.Contains(out, s) {
				i := strings.Index(out, s)
				t.Errorf("%s shows %q: %q", name, s, out[max(i-60, 0):min(i+40, len(out))])
			}
		}
	}
	if !strings.Contains(outputs["drip view --no-tui"], "127.0.0.1:9/v1/chat/completions?key=REDACTED&alt=sse") {
		t.Errorf("drip view does not show the target redacted:\n%s", outputs["drip view --no-tui"])
	}
}

// mergedSummaries is drip merge --summaries' output for two summaries of
// a whose target is secretTarget, as a hand-made summary may hold it.
func mergedSummaries(t *testing.T, a, path string) string {
	t.Helper()
	_, js, _ := drip(t, "view", "--json", a)
	var s map[string]any
	if err := json.Unmarshal([]byte(js), &s); err != nil {
		t.Fatalf("view --json: %v", err)
	}
	s["workload"].(map[string]any)["target"] = secretTarget
	b, _ := json.Marshal(s)
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
	_, stdout, stderr := drip(t, "merge", "--summaries", path, path)
	return stdout + stderr
}
