package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// writeRecording writes a recording of one streamed request per path, as
// drip record would, for drip replay to send again.
func writeRecording(t *testing.T, paths ...string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "rec.jsonl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	w := probe.NewWriter(f)
	for i, p := range paths {
		x := &record.Exchange{Method: "POST", Path: p, Streamed: true, ContentType: "text/event-stream"}
		x.SetBody([]byte(`{"model":"m","stream":true}`))
		r := &record.Record{V: record.RecordVersion, Seq: i, Phase: record.PhaseMeasure, Format: "openai-chat", Model: "m", Status: record.StatusComplete, Exchange: x}
		if err := w.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	return path
}

// A server under test that fails every replayed stream is exit 3, the
// failures named by class, whatever the gates say; a key it echoes back is
// in no line drip prints.
func TestReplayAgainstAServerThatFailsEverything(t *testing.T) {
	const key = "sk-REPLAY-H-SECRET-1"
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "Incorrect API key provided: " + r.Header.Get("Authorization")}})
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(msg)
	}))
	defer echo.Close()
	rec := writeRecording(t, "/v1/chat/completions", "/v1/chat/completions")
	for _, extra := range [][]string{nil, {"--fail-if", "failed > 0"}, {"--json"}, {"--markdown"}} {
		args := append([]string{"replay", rec, "--against", echo.URL, "-H", "Authorization: Bearer " + key, "--no-tui"}, extra...)
		code, stdout, stderr := drip(t, args...)
		if code != exitCannotGo || !strings.Contains(stderr, "no replayed stream completed (2 replayed: http_4xx ×2)") {
			t.Errorf("%v: exit %d, stderr:\n%s\nwant 3 naming the failures", extra, code, stderr)
		}
		if strings.Contains(stdout+stderr, "SECRET") || !strings.Contains(stderr, "Incorrect API key provided: ****") {
			t.Errorf("%v: the output shows the key, or not the server's message masked:\n%s\n%s", extra, stderr, stdout)
		}
	}
}
