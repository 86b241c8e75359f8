package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/stats"
)

func writeConfig(t *testing.T, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "drip.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// A config file runs a job on loopback: its target, model, header (from
// the environment), workload and gates; a flag on the command line wins.
func TestRunConfigFile(t *testing.T) {
	var mu sync.Mutex
	var keys []string
	fx := fixtures.NewServer()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		keys = append(keys, r.Header.Get("X-Api-Key"))
		mu.Unlock()
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	t.Setenv("DRIP_CONFIG_TEST_KEY", "s3cret")
	cfg := writeConfig(t, `targets = ["`+srv.URL+`"]
model = "steady"

[headers]
X-Api-Key = "${DRIP_CONFIG_TEST_KEY}"

[workload]
runs = 3

[gates]
slo = "ttft<1s"
fail-if = ["goodput < 90%", "failed > 0"]
`)
	code, stdout, stderr := drip(t, "run", "--config", cfg, "--runs", "2", "--json")
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var s stats.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	if s.Streams.Completed != 2 || s.Workload.Model != "steady" || len(s.Gates) != 2 || s.Goodput == nil {
		t.Errorf("streams %+v model %q gates %+v goodput %+v: want 2 (the flag over the file's 3), steady, two gates, goodput", s.Streams, s.Workload.Model, s.Gates, s.Goodput)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(keys) != 2 || keys[0] != "s3cret" {
		t.Errorf("the server saw X-Api-Key %q, want the environment's value on both requests", keys)
	}
	if strings.Contains(stdout+stderr, "s3cret") {
		t.Error("the header's value was written out")
	}
}

func TestRunConfigErrorsNameTheLine(t *testing.T) {
	t.Parallel()
	os.Unsetenv("DRIP_CONFIG_UNSET")
	for _, tc := range []struct{ text, msg string }{
		{"targets = [\"http://127.0.0.1:1\"]\n[workload]\nrunz = 3\n", "drip.toml:3: workload.runz: not a drip run flag"},
		{"targets = [\"http://127.0.0.1:1\"\n", "drip.toml:1: "},
		{"targets = [\"http://127.0.0.1:1\"]\n\n[workload]\nruns = \"many\"\n", "drip.toml:4: workload.runs: invalid argument \"many\""},
		{"targets = [\"http://127.0.0.1:1\"]\n[headers]\nAuthorization = \"Bearer ${DRIP_CONFIG_UNSET}\"\n", "drip.toml:3: headers.Authorization: ${DRIP_CONFIG_UNSET} is not set"},
		{"model = \"m\"\n", "no targets"},
		{"targets = [\"http://127.0.0.1:1\"]\nruns = 2\n[workload]\nruns = 3\n", "--runs is set twice in the file, as runs and as workload.runs: keep one"},
		{"targets = [\"http://127.0.0.1:1\"]\n[request]\nmodel = \"a\"\n[workload]\nmodel = \"b\"\n", "--model is set twice in the file, as request.model and as workload.model"},
		{"targets = [\"http://127.0.0.1:1\"]\n[gates]\nslo = \"ttft<<1\"\n", "--slo: SLO term"},
	} {
		code, _, stderr := drip(t, "run", "--config", writeConfig(t, tc.text))
		if code != exitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("config\n%s\nexit %d, stderr %q; want 2 and %q", tc.text, code, stderr, tc.msg)
		}
	}
}

// [headers] sets --header before request.header is read (keys run in
// sorted order); request.header still adds to it, since only the command
// line's flags win over the file.
func TestRunConfigHeadersAndRequestHeaderBothGo(t *testing.T) {
	t.Parallel()
	var mu sync.Mutex
	var seen []string
	fx := fixtures.NewServer()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.Header.Get("X-A")+"/"+r.Header.Get("X-B"))
		mu.Unlock()
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	cfg := writeConfig(t, "targets = [\""+srv.URL+"\"]\nmodel = \"steady\"\nruns = 1\n[headers]\nX-A = \"a\"\n[request]\nheader = [\"X-B: b\"]\n")
	if code, _, stderr := drip(t, "run", "--config", cfg, "--json"); code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	mu.Lock()
	defer mu.Unlock()
	if len(seen) != 1 || seen[0] != "a/b" {
		t.Errorf("the server saw X-A/X-B %q, want [a/b]: both the [headers] one and request.header's", seen)
	}
}

// An array given to a flag that takes one value is refused, naming the
// line, rather than being set once per element (runs = [1, 3] ran 3);
// internal/config's TestArrays has the list flags.
func TestRunConfigArrays(t *testing.T) {
	t.Parallel()
	code, _, stderr := drip(t, "run", "--config", writeConfig(t, "targets = [\"http://127.0.0.1:1\"]\n[workload]\nruns = [1, 3]\n"))
	if want := "drip.toml:3: workload.runs: --runs takes one value"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("runs = [1, 3]: exit %d, stderr %q; want 2 and %q", code, stderr, want)
	}
}

// A key set twice is named at its own line: workload.runs at the one in
// [workload], not at the top-level runs before it; a dotted key or an
// inline table is named at its line too (it named the file alone).
func TestRunConfigErrorNamesTheKeysOwnLine(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct{ text, msg string }{
		{"runs = 2\ntargets = [\"http://127.0.0.1:1\"]\n[workload]\nruns = 3\n", "drip.toml:4: workload.runs: --runs is set twice"},
		{"targets = [\"http://127.0.0.1:1\"]\n[request]\nmodel = \"a\"\n[workload]\nmodel = \"b\"\n", "drip.toml:5: workload.model: --model is set twice"},
		{"targets = [\"http://127.0.0.1:1\"]\n[gates]\nruns = \"x\"\n[workload]\nruns = 3\n", "drip.toml:3: gates.runs: invalid argument"},
		{"targets = [\"http://127.0.0.1:1\"]\nmodel = \"m\"\nworkload.runs = [1, 3]\n", "drip.toml:3: workload.runs: --runs takes one value"},
		{"targets = [\"http://127.0.0.1:1\"]\nworkload = { warmup = 1, runs = [1, 3] }\n", "drip.toml:2: workload.runs: --runs takes one value"},
	} {
		code, _, stderr := drip(t, "run", "--config", writeConfig(t, tc.text))
		if code != exitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("config\n%s\nexit %d, stderr %q; want 2 and %q", tc.text, code, stderr, tc.msg)
		}
	}
}

// A [headers] name that is no token is refused, naming its line: "X-A:
// Authorization" became the header X-A with "Authorization: <the secret>"
// as its value, sent where no redaction looks for a credential.
func TestRunConfigRefusesAHeaderNameThatIsNoToken(t *testing.T) {
	t.Parallel()
	var hits atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1); http.NotFound(w, r) }))
	defer srv.Close()
	for _, name := range []string{"X-A: Authorization", "X A", "X-\u00e9"} {
		cfg := writeConfig(t, "targets = [\""+srv.URL+"\"]\n[headers]\n\""+name+"\" = \"Bearer sk-secret\"\n")
		code, _, stderr := drip(t, "run", "--config", cfg, "--runs", "1")
		if want := "drip.toml:3: headers." + name + ": not a valid header name"; code != exitUsage || !strings.Contains(stderr, want) || strings.Contains(stderr, "sk-secret") {
			t.Errorf("%q: exit %d %q; want 2 saying %q", name, code, stderr, want)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests went out", n)
	}
}
