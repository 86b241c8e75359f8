package probe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// A server that quotes the credentials it got, in an in-stream error and
// in a 401 body, has them masked in the record and in every frame an
// observer sees (the live views): from -H, the environment's key, a
// signer's header and the URL's query, each as sent.
func TestStreamMasksCredentialsTheServerEchoes(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		quoted := fmt.Sprintf("%s|%s|%s|%s", r.Header.Get("Authorization"), r.Header.Get("X-Api-Key"), r.Header.Get("X-Amz-Security-Token"), r.URL.RequestURI())
		if r.URL.Query().Get("fail") != "" {
			w.WriteHeader(http.StatusUnauthorized)
			json.NewEncoder(w).Encode(map[string]any{"error": map[string]string{"message": "bad key " + quoted}})
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", "you sent "+quoted)
		fmt.Fprintf(w, "event: error\ndata: {\"error\":{\"message\":%q}}\n\n", "bad key "+quoted)
	}))
	defer srv.Close()
	sign := func(req *http.Request, _ []byte) error {
		req.Header.Set("X-Amz-Security-Token", "SESSION-TOKEN-SECRET-1")
		return nil
	}
	env := map[string]string{"OPENAI_API_KEY": "sk-ENV-SECRET-2"}
	for _, query := range []string{"?token=QUERY-SECRET-3", "?token=QUERY-SECRET-3&fail=1"} {
		tgt := probe.Target{
			URL: srv.URL + "/v1/chat/completions" + query, Format: adapters.Lookup("openai-chat"), Sign: sign,
			Header: http.Header{"X-Api-Key": {"sk-HEADER-SECRET-4"}}, Request: adapters.Request{Model: "m", Prompt: "hi"},
		}
		var seen []string
		rec := probe.Stream(context.Background(), tgt, probe.Options{Getenv: func(k string) string { return env[k] }}, &record.Record{}, func(e probe.Event) {
			for _, f := range e.Frames {
				seen = append(seen, f.Text)
			}
		})
		b, _ := json.Marshal(rec)
		if strings.Contains(string(b), "SECRET") || strings.Contains(strings.Join(seen, "\n"), "SECRET") {
			t.Errorf("%s: a credential shows:\nrecord %s\nobserved %q", query, b, seen)
		}
		if rec.Error == nil || !strings.Contains(rec.Error.Message, "bad key ") || !strings.Contains(rec.Error.Message, "*****") {
			t.Errorf("%s: error %+v; want the server's message with the keys masked", query, rec.Error)
		}
	}
}

// A model that says the key it was sent split across frames (a byte a
// frame, or after its first bytes) has it masked in the record and in the
// frames every observer sees (the live text view): of each saying, only
// the bytes before a split within its first redact.MinPrefix-1 bytes show.
func TestStreamMasksAKeySplitAcrossFrames(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	sayings := [][]string{strings.Split(key, ""), {"sk-Zq", "7vXw9KpL3mNc8RtY2u"}, {"sk", "-Zq7vXw9KpL3mNc8RtY2u"}}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, pieces := range sayings {
			for _, p := range append(pieces, " ") {
				fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{\"content\":%q}}]}\n\n", p)
			}
		}
	}))
	defer srv.Close()
	tgt := probe.Target{
		URL: srv.URL + "/v1/chat/completions", Format: adapters.Lookup("openai-chat"),
		Header: http.Header{"Authorization": {"Bearer " + key}}, Request: adapters.Request{Model: "m", Prompt: "hi"},
	}
	var seen strings.Builder
	rec := probe.Stream(context.Background(), tgt, probe.Options{}, &record.Record{}, func(e probe.Event) {
		for _, f := range e.Frames {
			seen.WriteString(f.Text)
		}
	})
	stars := func(n int) string { return strings.Repeat("*", n) }
	want := "sk-" + stars(len(key)-3) + " " + stars(len(key)) + " " + "sk" + stars(len(key)-2) + " "
	if rec.Text() != want || seen.String() != want {
		t.Errorf("record text %q, observed %q; want %q", rec.Text(), seen.String(), want)
	}
}

// A key said across answer frames with reasoning between them is still one
// key in the answer's text: each channel's text is masked as its own.
func TestStreamMasksAKeySplitAroundReasoning(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for _, d := range []string{`"content":"sk-Zq7v"`, `"reasoning_content":" thinking "`, `"content":"Xw9KpL3mNc8RtY2u"`, `"content":" done"`} {
			fmt.Fprintf(w, "data: {\"choices\":[{\"delta\":{%s}}]}\n\n", d)
		}
	}))
	defer srv.Close()
	tgt := probe.Target{
		URL: srv.URL + "/v1/chat/completions", Format: adapters.Lookup("openai-chat"),
		Header: http.Header{"Authorization": {"Bearer " + key}}, Request: adapters.Request{Model: "m", Prompt: "hi"},
	}
	rec := probe.Stream(context.Background(), tgt, probe.Options{}, &record.Record{}, nil)
	var answer, reasoning strings.Builder
	for _, f := range rec.Frames {
		switch {
		case f.IsAnswer():
			answer.WriteString(f.Text)
		case f.IsContent():
			reasoning.WriteString(f.Text)
		}
	}
	if want := strings.Repeat("*", len(key)) + " done"; answer.String() != want || reasoning.String() != " thinking " {
		t.Errorf("answer %q, reasoning %q; want %q, %q", answer.String(), reasoning.String(), want, " thinking ")
	}
}

// channelEvents are SSE events that say text in a channel, as OpenAI's
// chat completions and Anthropic's messages do.
var channelEvents = map[string]map[record.Channel]string{
	"openai-chat": {
		record.ChannelReasoning: `data: {"choices":[{"index":0,"delta":{"reasoning_content":%q}}]}` + "\n\n",
		record.ChannelText:      `data: {"choices":[{"index":0,"delta":{"content":%q}}]}` + "\n\n",
		record.ChannelTool:      `data: {"choices":[{"index":0,"delta":{"tool_calls":[{"index":0,"function":{"arguments":%q}}]}}]}` + "\n\n",
	},
	"anthropic": {
		record.ChannelReasoning: "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"thinking_delta\",\"thinking\":%q}}\n\n",
		record.ChannelText:      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":1,\"delta\":{\"type\":\"text_delta\",\"text\":%q}}\n\n",
		record.ChannelTool:      "event: content_block_delta\ndata: {\"type\":\"content_block_delta\",\"index\":2,\"delta\":{\"type\":\"input_json_delta\",\"partial_json\":%q}}\n\n",
	},
}

// A key the model begins in one channel and goes on with in another (its
// reasoning ends "sk-Zq7v" and its answer says the rest; the answer ends
// with its start and a tool call's arguments hold the rest) is masked in
// the record and in what every observer sees, split anywhere, in OpenAI's
// and Anthropic's formats, after a long run of text in either channel:
// of the frames' text in arrival order, only the bytes before a split
// within the key's first redact.MinPrefix-1 bytes show.
func TestStreamMasksAKeySplitAcrossChannels(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	filler := strings.Repeat("a long run of words in one channel, ", 3)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		events := channelEvents[q.Get("format")]
		w.Header().Set("Content-Type", "text/event-stream")
		for i, c := range strings.Split(q.Get("channels"), ",") {
			n, _ := strconv.Atoi(c)
			fmt.Fprintf(w, events[record.Channel(n)], q.Get(fmt.Sprint("p", i)))
		}
	}))
	defer srv.Close()
	for format, path := range map[string]string{"openai-chat": "/v1/chat/completions", "anthropic": "/v1/messages"} {
		for _, from := range [][2]record.Channel{{record.ChannelReasoning, record.ChannelText}, {record.ChannelText, record.ChannelTool}} {
			for _, long := range from {
				for at := 1; at < len(key); at++ {
					q := url.Values{"format": {format}, "channels": {fmt.Sprintf("%d,%d,%d,%d", long, from[0], from[1], from[1])},
						"p0": {filler}, "p1": {"my key: " + key[:at]}, "p2": {key[at:]}, "p3": {" ok"}}
					tgt := probe.Target{
						URL: srv.URL + path + "?" + q.Encode(), Format: adapters.Lookup(format),
						Header: http.Header{"Authorization": {"Bearer " + key}}, Request: adapters.Request{Model: "m", Prompt: "hi"},
					}
					var seen strings.Builder
					rec := probe.Stream(context.Background(), tgt, probe.Options{}, &record.Record{}, func(e probe.Event) {
						for _, f := range e.Frames {
							seen.WriteString(f.Text)
						}
					})
					shown := ""
					if at < redact.MinPrefix {
						shown = key[:at]
					}
					want := filler + "my key: " + shown + strings.Repeat("*", len(key)-len(shown)) + " ok"
					var got strings.Builder
					for _, f := range rec.Frames {
						got.WriteString(f.Text)
					}
					if got.String() != want || seen.String() != want {
						t.Errorf("%s, %v → %v after a run of %v, split at %d: record %q, observed %q; want %q", format, from[0], from[1], long, at, got.String(), seen.String(), want)
					}
				}
			}
		}
	}
}

// A prompt that quotes the key the request carries (a user pasting it in,
// a workload file that holds it): the server gets it as written; the
// record's kept request (--keep-request) has it starred.
func TestKeptRequestHasTheKeyStarred(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	got := make(chan string, 1) // the race detector sees no order in a reply over TCP
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		got <- string(b)
		w.Header().Set("Content-Type", "text/event-stream")
		fmt.Fprint(w, "data: {\"choices\":[{\"delta\":{\"content\":\"ok\"}}]}\n\ndata: [DONE]\n\n")
	}))
	defer srv.Close()
	tgt := probe.Target{
		URL: srv.URL + "/v1/chat/completions", Format: adapters.Lookup("openai-chat"),
		Header: http.Header{"Authorization": {"Bearer " + key}}, Request: adapters.Request{Model: "m", Prompt: "is " + key + " valid?"},
	}
	rec := probe.Stream(context.Background(), tgt, probe.Options{KeepRequest: true}, &record.Record{}, nil)
	kept := string(rec.Request)
	if strings.Contains(kept, "Zq7v") || !strings.Contains(kept, "is "+strings.Repeat("*", len(key))+" valid?") || !json.Valid(rec.Request) {
		t.Errorf("kept request %s; want the prompt with the key starred, JSON still", kept)
	}
	if sent := <-got; !strings.Contains(sent, "is "+key+" valid?") {
		t.Errorf("the server got %s; want the prompt as written, key and all", sent)
	}
}
