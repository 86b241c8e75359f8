package main

import (
	"net/http"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
)

// openAIOnly serves the fixture scenarios at OpenAI's chat endpoint only
// and answers any other path 404, as vLLM and Ollama do.
func openAIOnly() http.Handler {
	h := fixtures.NewServer()
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/v1/chat/completions" {
			http.NotFound(w, r)
			return
		}
		h.ServeHTTP(w, r)
	})
}

// A base URL as OPENAI_BASE_URL holds it, ending in /v1, is completed to
// the chat endpoint, which drip says, and the stream is measured.
func TestRunCompletesABaseURLEndingInV1(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, openAIOnly())
		out := filepath.Join(t.TempDir(), "r.jsonl")
		code, stdout, stderr := drip(t, "run", srv.URL+"/v1", "-m", "steady", "-n", "1", "--out", out)
		if code != exitOK || !strings.Contains(stdout, "1 completed") {
			t.Fatalf("exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
		}
		want := srv.URL + "/v1 is a base URL: sending to " + srv.URL + "/v1/chat/completions, openai-chat's endpoint"
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
		if r := readRecords(t, out)[0]; !strings.HasSuffix(r.Target, "/v1/chat/completions") {
			t.Errorf("the record's target is %s", r.Target)
		}
	})
}

// A 404 at a path that is not the format's endpoint names the one to try.
func TestRun404NamesThePathToTry(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, openAIOnly())
		code, stdout, stderr := drip(t, "run", srv.URL+"/api/chat/completions", "--format", "openai-chat", "-m", "steady", "-n", "1")
		want := "try " + srv.URL + "/v1/chat/completions"
		if code != exitCannotGo || !strings.Contains(stdout, "HTTP 404") || !strings.Contains(stdout, want) {
			t.Errorf("exit %d, want 3 and a report saying %q; stdout:\n%s\nstderr:\n%s", code, want, stdout, stderr)
		}
	})
}

// A model the URL names wins over -m, which drip warns of, and the
// records carry the model the server was asked for.
func TestModelInTheURLWinsOverM(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		out := filepath.Join(t.TempDir(), "r.jsonl")
		url := srv.URL + "/v1beta/models/steady:streamGenerateContent"
		code, _, stderr := drip(t, "run", url, "-m", "gemini-other", "-n", "1", "--out", out)
		if code != exitOK {
			t.Fatalf("exit %d\n%s", code, stderr)
		}
		if !strings.Contains(stderr, "warning: -m gemini-other ignored: the URL asks for model steady") {
			t.Errorf("no warning that -m disagrees with the URL:\n%s", stderr)
		}
		if r := readRecords(t, out)[0]; r.Model != "steady" {
			t.Errorf("the record names model %q, want the URL's, steady", r.Model)
		}
	})
}
