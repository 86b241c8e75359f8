package probe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
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
