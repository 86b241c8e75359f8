package main

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/stats"
)

// unauthorized answers every request as OpenAI does a wrong key: a 401
// whose message quotes the key it was sent.
var unauthorized = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	key := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
	msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "Incorrect API key provided: " + key + "."}})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(http.StatusUnauthorized)
	w.Write(msg)
})

// A 401 under load says why, as a single stream does: the server's words,
// the key masked, counted, in the text report, in --json and in the exit
// line on stderr.
func TestFailedStreamsUnderLoadKeepTheServersWords(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, unauthorized)
		args := []string{"run", srv.URL, "-m", "m", "-c", "4", "-n", "8", "-H", "Authorization: Bearer sk-SECRET-KEY-1"}
		code, stdout, stderr := drip(t, args...)
		if code != exitCannotGo {
			t.Fatalf("exit %d, want %d; stderr:\n%s", code, exitCannotGo, stderr)
		}
		want := "failures  http_4xx ×8: HTTP 401: Incorrect API key provided: " + strings.Repeat("*", len("sk-SECRET-KEY-1"))
		if !strings.Contains(stdout, want) {
			t.Errorf("the text report lacks %q:\n%s", want, stdout)
		}
		if !strings.Contains(stderr, "most often http_4xx: HTTP 401: Incorrect API key provided") {
			t.Errorf("stderr does not say why no stream completed:\n%s", stderr)
		}
		_, stdout, _ = drip(t, append(args, "--json")...)
		var s stats.Summary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("--json: %v\n%s", err, stdout)
		}
		msgs := s.Streams.FailedMessages
		if len(msgs) != 1 || msgs[0].Class != "http_4xx" || msgs[0].Count != 8 || !strings.HasPrefix(msgs[0].Message, "HTTP 401: Incorrect API key provided: ***") {
			t.Errorf("--json streams.failed_messages = %+v, want the 401's message ×8, masked", msgs)
		}
		for name, text := range map[string]string{"stdout": stdout, "stderr": stderr} {
			if strings.Contains(text, "SECRET") {
				t.Errorf("%s shows the key", name)
			}
		}
	})
}
