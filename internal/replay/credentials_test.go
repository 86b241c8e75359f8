package replay_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// TestReplayedRecordsHoldNoCredentialTheServerEchoes replays against a
// server that quotes the key it got, in an error body and in an in-stream
// error: the key came from -H, from the environment (by the recorded
// format), from --against's user info and query or from a SigV4 signer,
// and the replayed records (what the report and --out show) hold none of
// them.
func TestReplayedRecordsHoldNoCredentialTheServerEchoes(t *testing.T) {
	t.Parallel()
	echo := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		quoted := fmt.Sprintf("%s|%s|%s|%s", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("X-Amz-Security-Token"), r.URL.RequestURI())
		msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "Incorrect API key provided: " + quoted}})
		if strings.HasSuffix(r.URL.Path, "/messages") { // anthropic: an in-stream error event
			w.Header().Set("Content-Type", "text/event-stream")
			fmt.Fprintf(w, "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":%q}}\n\n", "bad key "+quoted)
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		w.Write(msg)
	}))
	t.Cleanup(echo.Close)
	recorded := func(format, path string) *record.Record {
		x := &record.Exchange{Method: "POST", Path: path, Streamed: true}
		x.SetBody([]byte(`{"model":"m","stream":true}`))
		return &record.Record{Format: format, Model: "m", Exchange: x}
	}
	streams := []*record.Record{recorded("openai-chat", "/v1/chat/completions"), recorded("anthropic", "/v1/messages")}
	env := map[string]string{"OPENAI_API_KEY": "sk-ENV-OPENAI-SECRET-1", "ANTHROPIC_API_KEY": "sk-ant-ENV-SECRET-2"}
	sigv4 := func(req *http.Request, _ []byte) error { // what the AWS signer sets, secrets in place of its values
		req.Header.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIA-SECRET-7/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=SIGV4-SECRET-8")
		req.Header.Set("X-Amz-Security-Token", "SESSION-TOKEN-SECRET-9")
		return nil
	}
	for _, c := range []struct {
		name    string
		against string
		header  http.Header
		sign    func(*http.Request, []byte) error
	}{
		{"-H", echo.URL, http.Header{"Authorization": {"Bearer sk-HEADER-SECRET-3"}, "X-Api-Key": {"sk-HEADER-SECRET-4"}}, nil},
		{"the environment", echo.URL, nil, nil},
		{"--against", strings.Replace(echo.URL, "://", "://ruser:AGAINST-PASS-SECRET-5@", 1) + "/base?token=AGAINST-QUERY-SECRET-6", nil, nil},
		{"a SigV4 signer", echo.URL, nil, sigv4},
	} {
		var replayed []*record.Record
		o := replay.Options{Against: c.against, Header: c.header, Sign: c.sign, Concurrency: 1, Probe: probe.Options{Getenv: func(k string) string { return env[k] }}}
		replay.Run(context.Background(), streams, o, func(r *record.Record) { replayed = append(replayed, r) })
		if len(replayed) != 2 {
			t.Fatalf("%s: %d replayed, want 2", c.name, len(replayed))
		}
		for _, r := range replayed {
			b, _ := json.Marshal(r)
			if r.Error == nil || !strings.Contains(r.Error.Message, "***") {
				t.Errorf("%s, %s: error %+v; want the server's message, the key masked", c.name, r.Format, r.Error)
			}
			if strings.Contains(string(b), "SECRET") {
				t.Errorf("%s, %s: the replayed record holds a credential: %s", c.name, r.Format, b)
			}
		}
	}
}
