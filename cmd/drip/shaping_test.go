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

// shapedRecords runs drip run against the fixture server on loopback with
// --keep-request and returns the records and the bodies they sent.
func shapedRecords(t *testing.T, url string, args ...string) ([]*record.Record, []map[string]any) {
	t.Helper()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	code, _, stderr := drip(t, append([]string{"run", url, "--keep-request", "--out", out}, args...)...)
	if code != exitOK {
		t.Fatalf("%v: exit %d\n%s", args, code, stderr)
	}
	recs := readRecords(t, out)
	var bodies []map[string]any
	for _, r := range recs {
		var b map[string]any
		if err := json.Unmarshal(r.Request, &b); err != nil {
			t.Fatalf("record %d request %q: %v", r.Seq, r.Request, err)
		}
		bodies = append(bodies, b)
	}
	return recs, bodies
}

func TestRunDataSendsTheBodyAsIs(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	body := `{"model":"steady","stream":true,"messages":[{"role":"user","content":"hi"}],"vendor_field":7}`
	file := filepath.Join(t.TempDir(), "body.json")
	os.WriteFile(file, []byte(body), 0o600)
	saved := stdin
	t.Cleanup(func() { stdin = saved })
	stdin = strings.NewReader(body)
	for _, d := range []string{body, "@" + file, "-"} {
		recs, _ := shapedRecords(t, srv.URL, "--runs", "1", "-d", d)
		r := recs[0]
		// steady sends its whole answer: the body's model reached the server.
		if string(r.Request) != body || r.Status != record.StatusComplete || r.OutputTokens != fixtures.Lookup("steady").OutputTokens() {
			t.Errorf("-d %.20s: sent %s, %s with %d tokens; want the body as is and steady's %d tokens",
				d, r.Request, r.Status, r.OutputTokens, fixtures.Lookup("steady").OutputTokens())
		}
	}
}

func TestRunExtraBodyMergesIntoTheGeneratedBody(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	recs, bodies := shapedRecords(t, srv.URL, "-m", "steady", "--runs", "1",
		"--extra-body", `{"temperature":0,"ignore_eos":true,"stream_options":{"continuous_usage_stats":true}}`)
	b := bodies[0]
	so, _ := b["stream_options"].(map[string]any)
	if b["temperature"] != 0.0 || b["ignore_eos"] != true || so["include_usage"] != true || so["continuous_usage_stats"] != true || b["model"] != "steady" {
		t.Errorf("sent %s: want the generated body with the extra fields merged in", recs[0].Request)
	}
	if recs[0].Status != record.StatusComplete {
		t.Errorf("status %s", recs[0].Status)
	}
}

func TestRunSyntheticLengths(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	recs, bodies := shapedRecords(t, srv.URL, "-m", "steady", "--runs", "4", "--seed", "7",
		"--input-tokens", "40±10", "--output-tokens", "16")
	ids := map[string]bool{}
	for i, b := range bodies {
		msgs, _ := b["messages"].([]any)
		m, _ := msgs[0].(map[string]any)
		words := len(strings.Fields(m["content"].(string)))
		if words < 1 || words > 100 || b["max_tokens"] != 16.0 {
			t.Errorf("stream %d: %d words, max_tokens %v; want about 40 words and 16", i, words, b["max_tokens"])
		}
		ids[recs[i].PromptID] = true
		// The fixture's usage reports prompt tokens: recorded as input tokens.
		if recs[i].InputTokens == nil || *recs[i].InputTokens != 12 {
			t.Errorf("stream %d: input_tokens %v, want the usage's 12", i, recs[i].InputTokens)
		}
	}
	if len(ids) != 4 || !ids["synthetic-1"] {
		t.Errorf("prompt ids %v, want synthetic-1…4", ids)
	}
	_, again := shapedRecords(t, srv.URL, "-m", "steady", "--runs", "4", "--seed", "7", "--input-tokens", "40±10", "--output-tokens", "16")
	first := map[string]bool{}
	for _, b := range bodies {
		first[b["messages"].([]any)[0].(map[string]any)["content"].(string)] = true
	}
	for _, b := range again {
		if !first[b["messages"].([]any)[0].(map[string]any)["content"].(string)] {
			t.Error("the same --seed made different prompts")
		}
	}
}

func TestRunShapingUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	body := filepath.Join(dir, "b.json")
	os.WriteFile(body, []byte(`{}`), 0o600)
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"-d", "{not json"}, "-d: the body is not JSON"},
		{[]string{"-d", "@" + filepath.Join(dir, "missing.json")}, "-d @"},
		{[]string{"-d", "  "}, "-d: the body is empty"},
		{[]string{"-d", "{}", "--body", body}, "--body and -d both give the request body"},
		{[]string{"-d", "{}", "--extra-body", `{"a":1}`}, "--extra-body merges into the body drip generates"},
		{[]string{"--extra-body", `[1,2]`}, "--extra-body: want a JSON object"},
		{[]string{"--input-tokens", "lots"}, `--input-tokens "lots": want N or N±SD`},
		{[]string{"--input-tokens", "10", "-p", "hi"}, "--input-tokens makes the prompts"},
		{[]string{"--output-tokens", "10", "--max-tokens", "5"}, "--output-tokens sets max_tokens per prompt"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.msg)
		}
	}
}
