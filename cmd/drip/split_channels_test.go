package main

import (
	"bytes"
	"fmt"
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

// channelSplits are where crossChannelServer's model splits splitKey
// between its reasoning and its answer: within the key's public start and
// past it.
var channelSplits = []int{1, 3, 4, 9, len(splitKey) - 1}

// crossChannelServer streams a model whose reasoning begins the Bearer or
// x-api-key key it got and whose answer goes on with the rest, once for
// each split of channelSplits: OpenAI's chat completions with
// reasoning_content, Anthropic's messages with a thinking block and a
// text block.
func crossChannelServer(t *testing.T) *httptest.Server {
	events := map[string][2]string{
		"/v1/chat/completions": {
			`data: {"choices":[{"index":0,"delta":{"reasoning_content":%q}}]}` + "\n\n",
			`data: {"choices":[{"index":0,"delta":{"content":%q}}]}` + "\n\n",
		},
		"/v1/messages": {
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":%q}}\n\n",
			"event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n",
		},
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get("Authorization") != "Bearer "+splitKey && r.Header.Get("X-Api-Key") != splitKey {
			http.Error(w, "no key", http.StatusUnauthorized)
			return
		}
		ev := events[r.URL.Path]
		w.Header().Set("Content-Type", "text/event-stream")
		for _, at := range channelSplits {
			fmt.Fprintf(w, ev[0], "the key is "+splitKey[:at])
			w.(http.Flusher).Flush()
			fmt.Fprintf(w, ev[1], splitKey[at:]+". ")
			w.(http.Flusher).Flush()
		}
		if r.URL.Path == "/v1/messages" {
			fmt.Fprint(w, "event: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")
		} else {
			fmt.Fprint(w, "data: [DONE]\n\n")
		}
	}))
	t.Cleanup(srv.Close)
	return srv
}

// A model that begins the key it was sent in its reasoning and says the
// rest in its answer, split anywhere, in OpenAI's and Anthropic's
// formats, has it shown nowhere: drip run's --out record, its --json
// stdout and its stderr hold no redact.MinPrefix bytes of the key in a
// row, and the record's frames say, in arrival order, the text with the
// key masked but for what stood before a split within its first
// redact.MinPrefix-1 bytes.
func TestNoKeyTheModelSplitsAcrossReasoningAndAnswerInRunOutput(t *testing.T) {
	t.Parallel()
	srv := crossChannelServer(t)
	var want strings.Builder
	for _, at := range channelSplits {
		shown := ""
		if at < redact.MinPrefix {
			shown = splitKey[:at]
		}
		want.WriteString("the key is " + shown + strings.Repeat("*", len(splitKey)-len(shown)) + ". ")
	}
	for path, header := range map[string]string{"/v1/chat/completions": "Authorization: Bearer " + splitKey, "/v1/messages": "X-Api-Key: " + splitKey} {
		out := filepath.Join(t.TempDir(), "out.jsonl")
		code, stdout, stderr := drip(t, "run", srv.URL+path, "-m", "m", "--runs", "1", "-H", header, "--json", "--out", out)
		if code != exitOK {
			t.Fatalf("%s: exit %d; stderr:\n%s", path, code, stderr)
		}
		b, _ := os.ReadFile(out)
		recs, _, err := record.ReadAll(bytes.NewReader(b), stats.Rederive)
		if err != nil || len(recs) != 1 {
			t.Fatalf("%s: %d records (%v) in:\n%s", path, len(recs), err, b)
		}
		var said strings.Builder
		for _, f := range recs[0].Frames {
			said.WriteString(f.Text)
		}
		if said.String() != want.String() {
			t.Errorf("%s: the record's frames say %q, want %q", path, said.String(), want.String())
		}
		for name, text := range map[string]string{"--out": string(b), "stdout": stdout, "stderr": stderr} {
			for i := 0; i+redact.MinPrefix <= len(splitKey); i++ {
				if w := splitKey[i : i+redact.MinPrefix]; strings.Contains(text, w) {
					t.Errorf("%s: %s holds %q of the key:\n%.3000s", path, name, w, text)
					break
				}
			}
		}
	}
}
