package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"github.com/driplab/drip/fixtures"
)

// The JSON Schemas under docs/schema validate what drip really writes: the
// records of runs against the fixture server (complete, failed, reasoning,
// several formats), their summaries and drip compare's JSON.

const schemaBase = "https://github.com/driplab/drip/docs/schema/"

func compileSchemas(t *testing.T) map[string]*jsonschema.Schema {
	t.Helper()
	c := jsonschema.NewCompiler()
	names := []string{"record.v1", "summary.v1", "compare.v1"}
	for _, n := range names {
		f, err := os.Open(filepath.Join("..", "docs", "schema", n+".schema.json"))
		if err != nil {
			t.Fatal(err)
		}
		doc, err := jsonschema.UnmarshalJSON(f)
		f.Close()
		if err != nil {
			t.Fatalf("%s: %v", n, err)
		}
		if err := c.AddResource(schemaBase+n+".schema.json", doc); err != nil {
			t.Fatalf("%s: %v", n, err)
		}
	}
	out := map[string]*jsonschema.Schema{}
	for _, n := range names {
		s, err := c.Compile(schemaBase + n + ".schema.json")
		if err != nil {
			t.Fatalf("%s does not compile: %v", n, err)
		}
		out[n] = s
	}
	return out
}

func validate(t *testing.T, s *jsonschema.Schema, what string, data []byte) {
	t.Helper()
	v, err := jsonschema.UnmarshalJSON(bytes.NewReader(data))
	if err != nil {
		t.Fatalf("%s is not JSON: %v\n%.500s", what, err, data)
	}
	if err := s.Validate(v); err != nil {
		t.Errorf("%s does not match its schema:\n%v\n%.800s", what, err, data)
	}
}

func TestOutputsMatchTheirSchemas(t *testing.T) {
	schemas := compileSchemas(t)
	dir := t.TempDir()
	bin := buildDrip(t, dir)
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	runs := []struct {
		name string
		args []string
	}{
		{"steady", []string{srv.URL, "-m", "steady", "--runs", "3", "--warmup", "1", "--slo", "ttft<1s,gap.p99<250ms", "--fail-if", "ttft.p95 > 1s"}},
		{"stall", []string{srv.URL, "-m", "mid-sentence-stall", "--runs", "3", "--input-tokens", "20±5"}},
		{"failures", []string{srv.URL, "-m", "rate-limited", "--runs", "1"}},
		{"aborted", []string{srv.URL, "-m", "abort-midstream", "--runs", "1"}},
		{"in-stream-error", []string{srv.URL + "/v1/messages", "-m", "in-stream-error", "--runs", "1"}},
		{"reasoning", []string{srv.URL + "/v1/responses", "-m", "reasoning", "--runs", "1", "--keep-request"}},
		{"sweep", []string{srv.URL, "-m", "steady", "--concurrency", "1,2", "--runs-per-level", "2", "--stop-when", "ttft.p95 > 1h"}},
	}
	var files []string
	var summaries [][]byte
	for _, r := range runs {
		file := filepath.Join(dir, r.name+".jsonl")
		cmd := exec.Command(bin, append(append([]string{"run"}, r.args...), "--json", "--out", file)...)
		var stdout, stderr bytes.Buffer
		cmd.Stdout, cmd.Stderr = &stdout, &stderr
		err := cmd.Run()
		if _, ok := err.(*exec.ExitError); err != nil && !ok {
			t.Fatal(err)
		}
		validate(t, schemas["summary.v1"], r.name+" summary", stdout.Bytes())
		summaries = append(summaries, stdout.Bytes())
		f, err := os.Open(file)
		if err != nil {
			t.Fatalf("%s: %v; stderr:\n%s", r.name, err, stderr.String())
		}
		sc := bufio.NewScanner(f)
		sc.Buffer(nil, 1<<24)
		n := 0
		for sc.Scan() {
			n++
			validate(t, schemas["record.v1"], r.name+" record "+string(rune('0'+n)), sc.Bytes())
		}
		f.Close()
		if n == 0 {
			t.Errorf("%s wrote no records; stderr:\n%s", r.name, stderr.String())
		}
		files = append(files, file)
	}
	summaryKeysAreDocumented(t, summaries)
	out, err := exec.Command(bin, append([]string{"compare", "--json"}, files[:2]...)...).Output()
	if err != nil {
		t.Fatalf("compare: %v", err)
	}
	validate(t, schemas["compare.v1"], "compare", out)
	// The schema is no rubber stamp: a record without its version fails.
	var rec map[string]any
	b, _ := os.ReadFile(files[0])
	json.Unmarshal([]byte(strings.SplitN(string(b), "\n", 2)[0]), &rec)
	delete(rec, "v")
	rec["ttft_ms"] = "fast"
	bad, _ := json.Marshal(rec)
	v, _ := jsonschema.UnmarshalJSON(bytes.NewReader(bad))
	if err := schemas["record.v1"].Validate(v); err == nil {
		t.Error("a record without v and with a string ttft_ms passed the schema")
	}
}

// summaryKeysAreDocumented: the runs above gave the summary's optional
// keys (client, sweep, goodput, connect_ramp among them), and each
// top-level key of the schema is a row of docs/records.md's Summary
// table. The schema refuses keys it does not name, so a key drip adds
// without a doc fails the validation above.
func summaryKeysAreDocumented(t *testing.T, summaries [][]byte) {
	t.Helper()
	seen := map[string]bool{}
	for _, b := range summaries {
		var top map[string]json.RawMessage
		if json.Unmarshal(b, &top) == nil {
			for k := range top {
				seen[k] = true
			}
		}
	}
	for _, k := range []string{"client", "sweep", "goodput"} {
		if !seen[k] {
			t.Errorf("no summary of the runs has %q: the schema test no longer covers it", k)
		}
	}
	raw, err := os.ReadFile(filepath.Join("..", "docs", "schema", "summary.v1.schema.json"))
	if err != nil {
		t.Fatal(err)
	}
	var schema struct{ Properties map[string]any }
	if err := json.Unmarshal(raw, &schema); err != nil {
		t.Fatal(err)
	}
	doc, err := os.ReadFile(filepath.Join("..", "docs", "records.md"))
	if err != nil {
		t.Fatal(err)
	}
	_, table, _ := strings.Cut(string(doc), "## Summary")
	table, _, _ = strings.Cut(table, "\n## ")
	for k := range schema.Properties {
		if k != "v" && !strings.Contains(table, "| `"+k+"`") && !strings.Contains(table, "`"+k+"` |") && !strings.Contains(table, ", `"+k+"`") {
			t.Errorf("docs/records.md's Summary table has no row for %q", k)
		}
	}
}
