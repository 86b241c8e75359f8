package integration

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
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

// dripBinary builds cmd/drip once for the tests of this module, in
// binaryDir, which TestMain removes.
var dripBinary = sync.OnceValues(func() (string, error) {
	dir, err := os.MkdirTemp("", "drip-schema-")
	if err != nil {
		return "", err
	}
	binaryDir = dir
	bin := filepath.Join(dir, "drip")
	if out, err := exec.Command("go", "build", "-C", "..", "-o", bin, "./cmd/drip").CombinedOutput(); err != nil {
		return "", fmt.Errorf("build: %v\n%s", err, out)
	}
	return bin, nil
})

func buildDrip(t testing.TB) string {
	t.Helper()
	bin, err := dripBinary()
	if err != nil {
		t.Fatal(err)
	}
	return bin
}

var binaryDir string

func TestMain(m *testing.M) {
	code := m.Run()
	if binaryDir != "" {
		os.RemoveAll(binaryDir)
	}
	os.Exit(code)
}

func TestOutputsMatchTheirSchemas(t *testing.T) {
	t.Parallel()
	schemas := compileSchemas(t)
	dir := t.TempDir()
	bin := buildDrip(t)
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
		{"names-vllm", []string{srv.URL, "-m", "steady", "--runs", "2", "--slo", "ttft<1s", "--names", "vllm"}},
		{"names-aiperf", []string{srv.URL, "-m", "steady", "--runs", "2", "--slo", "ttft<1s", "--names", "aiperf"}},
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
	for _, k := range []string{"client", "sweep", "goodput", "median_ttft_ms", "time_to_first_token"} {
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

// TestRecordingsMatchTheRecordSchema: every record drip record writes
// validates, a stream's and an exchange that did not stream (phase
// passthrough) alike.
func TestRecordingsMatchTheRecordSchema(t *testing.T) {
	t.Parallel()
	schemas := compileSchemas(t)
	bin := buildDrip(t)
	fx := fixtures.NewServer()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path == "/v1/models" { // an answer that does not stream: passthrough
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"object":"list","data":[{"id":"steady","object":"model"}]}`)
			return
		}
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	file := filepath.Join(t.TempDir(), "rec.jsonl")
	addr := fmt.Sprintf("127.0.0.1:%d", freePort(t))
	cmd := exec.Command(bin, "record", "--listen", addr, "--upstream", srv.URL, "--out", file)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	if !waitListening(addr, exited) {
		t.Fatalf("drip record did not listen on %s:\n%s", addr, stderr.String())
	}
	for _, req := range []struct{ method, path, body string }{
		{"POST", "/v1/chat/completions", `{"model":"steady","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"POST", "/v1/messages", `{"model":"mid-sentence-stall","stream":true,"max_tokens":50,"messages":[{"role":"user","content":"hi"}]}`},
		{"POST", "/v1/chat/completions", `{"model":"rate-limited","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{"GET", "/v1/models", ""},
	} {
		r, _ := http.NewRequest(req.method, "http://"+addr+req.path, strings.NewReader(req.body))
		resp, err := http.DefaultClient.Do(r)
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	cmd.Process.Signal(os.Interrupt)
	<-exited
	b, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("%v; stderr:\n%s", err, stderr.String())
	}
	phases := map[string]int{}
	for i, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
		validate(t, schemas["record.v1"], fmt.Sprintf("drip record's record %d", i+1), []byte(line))
		var rec struct{ Phase string }
		json.Unmarshal([]byte(line), &rec)
		phases[rec.Phase]++
	}
	if phases["measure"] != 3 || phases["passthrough"] != 1 {
		t.Errorf("records by phase %v; want 3 streams (measure) and 1 passthrough", phases)
	}
}
