package main

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// echoingServer answers every request with the credentials it got quoted
// back: a 401 body for OpenAI's and Gemini's paths, an in-stream error
// event (after a 200) for Anthropic's, as real servers do for a wrong key.
func echoingServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		quoted := fmt.Sprintf("%s|%s|%s", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.URL.RequestURI())
		if strings.HasSuffix(r.URL.Path, "/messages") {
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":%q}}\n\n", "Incorrect API key provided: "+quoted)
			return
		}
		msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "Incorrect API key provided: " + quoted}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(msg)
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A server that quotes the key it got, in a 401 body or an in-stream error,
// has it shown nowhere: not in --out's records, stdout or stderr, for drip
// run, drip watch --no-tui and several targets side by side, whether the key
// came from -H, the environment or the URL's query. The server's message is
// still there, the key masked.
func TestNoEchoedCredentialInRunOrWatchOutput(t *testing.T) {
	srv := echoingServer(t)
	t.Setenv("ANTHROPIC_API_KEY", "sk-ant-ENV-SECRET-1")
	t.Setenv("OPENAI_API_KEY", "sk-ENV-OPENAI-SECRET-2")
	openai, anthropic := srv.URL+"/v1/chat/completions", srv.URL+"/v1/messages"
	gemini := srv.URL + "/v1beta/models/m:streamGenerateContent?alt=sse&key=AIza-QUERY-SECRET-3"
	for _, args := range [][]string{
		{"run", openai, "-H", "Authorization: Bearer sk-HEADER-SECRET-4"},
		{"run", openai},
		{"run", anthropic},
		{"run", gemini},
		{"run", openai, anthropic, "-H", "X-Api-Key: sk-HEADER-SECRET-5"},
		{"watch", "--no-tui", openai, "-H", "Authorization: Bearer sk-HEADER-SECRET-6"},
		{"watch", "--no-tui", anthropic, gemini},
	} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		_, stdout, stderr := drip(t, append(args, "-m", "m", "--out", out)...)
		files, _ := filepath.Glob(strings.TrimSuffix(out, ".jsonl") + "*.jsonl")
		if len(files) == 0 {
			t.Errorf("%v: no --out file written; stderr:\n%s", args, stderr)
		}
		shown := map[string]string{"stdout": stdout, "stderr": stderr}
		for _, f := range files {
			b, _ := os.ReadFile(f)
			shown[filepath.Base(f)] = string(b)
			if !strings.Contains(string(b), "Incorrect API key provided: ") || !strings.Contains(string(b), "********") {
				t.Errorf("%v: %s lacks the server's message with the key masked:\n%.800s", args, filepath.Base(f), b)
			}
		}
		for name, text := range shown {
			if strings.Contains(text, "SECRET") {
				t.Errorf("%v: %s shows the key:\n%.2000s", args, name, text)
			}
		}
	}
}
