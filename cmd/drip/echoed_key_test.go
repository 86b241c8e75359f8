package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
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

// splitKey is the key splitKeyServer's model says token by token.
const splitKey = "sk-Zq7vXw9KpL3mNc8RtY2u"

// splitKeyPieces are the ways splitKeyServer says splitKey, one frame a
// piece: after its public "sk-", after one byte, a byte a frame, and
// after its first four bytes with a frame wholly inside it.
var splitKeyPieces = [][]string{
	{"sk-", "Zq7vXw9K", "pL3mNc8RtY2u"},
	{"s", "k-Zq7vXw9KpL3mNc8RtY2u"},
	strings.Split(splitKey, ""),
	{"sk-Z", "q7vXw9", "KpL3mN", "c8RtY2u"},
}

// splitKeyText is what a record of splitKeyServer's stream holds: of each
// saying of the key, the bytes before a split within its first
// redact.MinPrefix-1 bytes, and stars.
func splitKeyText() string {
	var b strings.Builder
	for _, shown := range []string{"sk-", "s", "sk-", ""} {
		b.WriteString("your key is " + shown + strings.Repeat("*", len(splitKey)-len(shown)) + ". ")
	}
	return b.String()
}

// splitKeyServer streams an OpenAI chat completion that says back the
// Bearer key it got, split across frames in each way of splitKeyPieces.
func splitKeyServer(t *testing.T) *httptest.Server {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+splitKey {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		say := func(s string) {
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", s)
			w.(http.Flusher).Flush()
		}
		for _, pieces := range splitKeyPieces {
			say("your key is ")
			for _, p := range pieces {
				say(p)
			}
			say(". ")
		}
		io.WriteString(w, "data: [DONE]\n\n")
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A model that says the key it was sent token by token, split across
// frames anywhere, has it shown nowhere: drip run's --out record (what
// drip view shows), its --json stdout and its stderr hold no
// redact.MinPrefix bytes of the key in a row, and the record's text is
// the answer with the key masked but for what stood before a split
// within its first redact.MinPrefix-1 bytes.
func TestNoKeyTheModelSaysSplitAcrossFramesInRunOutput(t *testing.T) {
	t.Parallel()
	srv := splitKeyServer(t)
	out := filepath.Join(t.TempDir(), "out.jsonl")
	code, stdout, stderr := drip(t, "run", srv.URL+"/v1/chat/completions", "-m", "m", "--runs", "1",
		"-H", "Authorization: Bearer "+splitKey, "--json", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	b, _ := os.ReadFile(out)
	recs, _, err := record.ReadAll(bytes.NewReader(b), stats.Rederive)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records (%v) in:\n%s", len(recs), err, b)
	}
	if got, want := recs[0].Text(), splitKeyText(); got != want {
		t.Errorf("record text %q, want %q", got, want)
	}
	shown := map[string]string{"--out": string(b), "stdout": stdout, "stderr": stderr}
	for name, text := range shown {
		for i := 0; i+redact.MinPrefix <= len(splitKey); i++ {
			if w := splitKey[i : i+redact.MinPrefix]; strings.Contains(text, w) {
				t.Errorf("%s holds %q of the key:\n%.3000s", name, w, text)
				break
			}
		}
	}
}
