package probe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// serveTyped serves body with the content type ct at every path.
func serveTyped(t *testing.T, ct, body string) string {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", ct)
		w.Write([]byte(body))
	}))
	t.Cleanup(srv.Close)
	return srv.URL + "/my/endpoint"
}

// TestNotAStreamUnderAuto: a 2xx login page or whole JSON answer is class
// not_stream under auto or an explicit format, never complete, its
// message naming the content type and first bytes (the key masked); an
// NDJSON stream labelled JSON, and any body --format raw reads, are
// streams still.
func TestNotAStreamUnderAuto(t *testing.T) {
	const page = "<!doctype html><html><body>Sign in\x1b[31m</body></html>"
	for _, tc := range []struct {
		name, ct, body, format string
		want                   string // error class; "" for none
		says                   []string
	}{
		{"login page", "text/html; charset=utf-8", page, "auto", record.ErrNotStream, []string{"text/html", `"<!doctype html><html><body>Sign in\x1b[31m<…"`}},
		{"whole JSON answer", "application/json", `{"choices":[{"message":{"content":"hi"}}]}`, "auto", record.ErrNotStream, []string{"application/json", `"{\"choices\"`}},
		{"pretty JSON answer", "application/json", "{\n  \"choices\": [\n    {\"message\": {\"content\": \"hi\"}}\n  ]\n}\n", "auto", record.ErrNotStream, []string{"application/json"}},
		{"NDJSON labelled JSON", "application/json", "{\"response\":\"a\"}\n{\"response\":\"b\"}\n", "auto", "", nil},
		{"SSE labelled HTML", "text/html", "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n", "auto", "", nil},
		{"login page, --format raw", "text/html", page, "raw", "", nil},
		// Whatever picked the decoder: a path or --format names what was
		// asked for, not what came.
		{"login page, --format openai-chat", "text/html", page, "openai-chat", record.ErrNotStream, []string{"text/html", `"<!doctype html>`}},
		{"whole JSON answer, --format openai-chat", "application/json", `{"choices":[{"message":{"content":"hi"}}]}`, "openai-chat", record.ErrNotStream, []string{"application/json", `"{\"choices\"`}},
		{"SSE type, JSON body, --format openai-chat", "text/event-stream", `{"choices":[{"message":{"content":"hi"}}]}`, "openai-chat", record.ErrNotStream, []string{"text/event-stream", `"{\"choices\"`}},
		{"SSE type, JSON body, auto", "text/event-stream", `{"choices":[{"message":{"content":"hi"}}]}`, "auto", record.ErrNotStream, []string{"text/event-stream"}},
		{"untyped page, --format anthropic", "", page, "anthropic", record.ErrNotStream, []string{"<!doctype html>"}},
		// The key the request carried, echoed by the page, is masked.
		{"page quoting the key", "text/html", "<p>key sk-notstream-0123456789abcdef</p>", "openai-chat", record.ErrNotStream, []string{"<p>key ***"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := serveTyped(t, tc.ct, tc.body)
			f := adapters.Auto
			if tc.format != "auto" {
				f = adapters.Lookup(tc.format)
			}
			tgt := probe.Target{URL: u, Format: f, Header: http.Header{"Authorization": {"Bearer sk-notstream-0123456789abcdef"}}}
			r := probe.Stream(context.Background(), tgt, probe.Options{}, &record.Record{}, nil)
			if r.Error != nil && strings.Contains(r.Error.Message, "0123456789abcdef") {
				t.Errorf("message %q quotes the key", r.Error.Message)
			}
			got := ""
			if r.Error != nil {
				got = r.Error.Class
			}
			if got != tc.want {
				t.Fatalf("error %s, want %q (status %s)", errString(r.Error), tc.want, r.Status)
			}
			if tc.want != "" && (r.Status != record.StatusFailed || r.Complete) {
				t.Errorf("status %s complete %v, want failed", r.Status, r.Complete)
			}
			for _, s := range tc.says {
				if !strings.Contains(r.Error.Message, s) {
					t.Errorf("message %q lacks %q", r.Error.Message, s)
				}
			}
		})
	}
}

// TestConnectTimedOnlyWhenNew: a stream on a new connection records its
// connect time, one on a reused connection null.
func TestConnectTimedOnlyWhenNew(t *testing.T) {
	u := serveTyped(t, "text/event-stream", "data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n")
	o := probe.Options{Client: probe.NewClient(0)}
	tgt := probe.Target{URL: u, Format: adapters.Lookup("openai-chat")}
	first := probe.Stream(context.Background(), tgt, o, &record.Record{}, nil)
	second := probe.Stream(context.Background(), tgt, o, &record.Record{}, nil)
	if first.ConnectMS == nil || *first.ConnectMS <= 0 || *first.ConnectMS > *first.HeadersMS {
		t.Errorf("first stream connect %s, headers %s: want 0 < connect ≤ headers", num(first.ConnectMS), num(first.HeadersMS))
	}
	if second.ConnectMS != nil {
		t.Errorf("second stream (reused connection) connect %s, want null", num(second.ConnectMS))
	}
	// The body left with the headers: the split is unknown, unless this
	// machine was slow enough to read the body a millisecond later.
	split := first.TTFTPathMS != nil && first.TTFTServerMS != nil && *first.TTFTPathMS+*first.TTFTServerMS == *first.TTFTMS
	if !split && first.TTFTPathUnknown != record.PathHeadersWithContent {
		t.Errorf("ttft %s split %s + %s (unknown: %q)", num(first.TTFTMS), num(first.TTFTPathMS), num(first.TTFTServerMS), first.TTFTPathUnknown)
	}
}
