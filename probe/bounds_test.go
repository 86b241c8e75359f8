package probe_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

const chunk3 = "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n"

// serveBody is a hostile server that writes body in 64 KiB writes.
func serveBody(body string) *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for len(body) > 0 {
			n := min(len(body), 64<<10)
			io.WriteString(w, body[:n])
			body = body[n:]
		}
	}))
}

func streamOpenAI(t *testing.T, srv *httptest.Server, format string, o probe.Options) *record.Record {
	t.Helper()
	tgt := probe.Target{URL: srv.URL + "/v1/chat/completions", Format: adapters.Lookup(format), Request: adapters.Request{Model: "m", Prompt: "hi"}}
	return probe.Stream(context.Background(), tgt, o, &record.Record{}, nil)
}

// 7.8 MB of keepalives cost 962 MB: now every one is counted and the
// record keeps only the first 100 frames of them.
func TestKeepaliveFloodIsCounted(t *testing.T) {
	const pings = 975_000 // ": ping\n\n" is 8 bytes: 7.8 MB
	srv := serveBody(strings.Repeat(": ping\n\n", pings) + strings.Repeat(chunk3, 3) + "data: [DONE]\n\n")
	defer srv.Close()
	rec := streamOpenAI(t, srv, "openai-chat", probe.Options{})
	kept := 0
	for _, f := range rec.Frames {
		if f.Kind == adapters.KindPing {
			kept++
		}
	}
	if rec.Status != record.StatusComplete || rec.Keepalives != pings || kept != 100 || rec.ContentFrames != 3 {
		t.Fatalf("status %s error %+v keepalives %d, %d kept, %d content; want complete, %d counted, 100 kept, 3 content",
			rec.Status, rec.Error, rec.Keepalives, kept, rec.ContentFrames, pings)
	}
	b, _ := json.Marshal(rec)
	if len(b) > 64<<10 {
		t.Errorf("record line is %d bytes", len(b))
	}
}

func TestMaxFramesStopsTheStream(t *testing.T) {
	srv := serveBody(strings.Repeat(chunk3, 500) + "data: [DONE]\n\n")
	defer srv.Close()
	rec := streamOpenAI(t, srv, "openai-chat", probe.Options{MaxFrames: 50})
	if rec.Status != record.StatusIncomplete || rec.Error == nil || rec.Error.Class != record.ErrLimit || len(rec.Frames) != 50 {
		t.Fatalf("status %s error %+v frames %d; want incomplete, class limit, 50 frames kept", rec.Status, rec.Error, len(rec.Frames))
	}
	if rec.TTFTMS == nil || rec.E2EMS != nil {
		t.Errorf("ttft %v e2e %v: an incomplete stream keeps TTFT and has no e2e", rec.TTFTMS, rec.E2EMS)
	}
}

func TestMaxBytesStopsTheStream(t *testing.T) {
	srv := serveBody(strings.Repeat("x", 1<<20))
	defer srv.Close()
	rec := streamOpenAI(t, srv, "raw", probe.Options{MaxBytes: 100_000})
	got := 0
	for _, f := range rec.Frames {
		got += f.Bytes
	}
	if rec.Status != record.StatusIncomplete || rec.Error == nil || rec.Error.Class != record.ErrLimit || got != 100_000 {
		t.Fatalf("status %s error %+v, %d bytes kept; want incomplete, class limit, 100000 bytes", rec.Status, rec.Error, got)
	}
}

// Token counts outside 0..1e9 are not counted, the record says why, and a
// summary over such streams stays finite and encodable.
func TestServerTokenCountsOutOfRange(t *testing.T) {
	a := stats.NewAggregate(stats.DefaultStall)
	for _, n := range []string{"-100", "9223372036854775807", "9223372036854775807"} {
		srv := serveBody(strings.Repeat(chunk3, 3) +
			fmt.Sprintf("data: {\"choices\":[],\"usage\":{\"completion_tokens\":%s}}\n\ndata: [DONE]\n\n", n))
		rec := streamOpenAI(t, srv, "openai-chat", probe.Options{})
		srv.Close()
		if rec.TokensSource != "approx" || rec.OutputTokens != 3 || !strings.Contains(rec.TokensRejected, n) {
			t.Errorf("usage %s: tokens %d (%s), rejected %q; want 3 approx and the reason", n, rec.OutputTokens, rec.TokensSource, rec.TokensRejected)
		}
		a.Add(rec)
	}
	s := a.Summary(stats.Workload{})
	if _, err := json.Marshal(s); err != nil || s.Throughput.OutputTokens != 9 {
		t.Errorf("summary: %v, output tokens %d, want 9", err, s.Throughput.OutputTokens)
	}
}

// A crafted record file with times at the edge of float64 is refused, not
// summed into an Inf the JSON encoder cannot write.
func TestRecordTimesBounded(t *testing.T) {
	for _, v := range []string{"1e300", "1.7976931348623157e308"} {
		line := `{"v":1,"seq":1,"status":"complete","duration_ms":` + v + `,"frames":[{"t_ms":` + v + `,"read":0,"bytes":1,"kind":"content","text":"a"}]}`
		if _, _, err := record.ReadAll(strings.NewReader(line+"\n"+line+"\n"), stats.Rederive); err == nil {
			t.Errorf("times of %s accepted", v)
		}
	}
}
