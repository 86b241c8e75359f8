package probe_test

import (
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// chatStream is an HTTP handler streaming an OpenAI-style chat completion
// as server-sent events, each event flushed on its own: a role chunk, the
// words with a pause before each, and [DONE].
func chatStream(pause time.Duration, words ...string) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		event := func(data string) {
			fmt.Fprintf(w, "data: %s\n\n", data)
			w.(http.Flusher).Flush()
		}
		event(`{"choices":[{"delta":{"role":"assistant","content":""}}]}`)
		for _, word := range words {
			time.Sleep(pause)
			event(fmt.Sprintf(`{"choices":[{"delta":{"content":%q}}]}`, word))
		}
		event("[DONE]")
	}
}

// Measure the time to first token of an HTTP handler: serve it, stream
// one request through the probe, and pool the record into a summary that
// a gate judges. The figures are times, so the example prints what does
// not depend on the machine: the frames, the text, that a TTFT was
// measured and the gate's verdict.
func ExampleStream() {
	srv := httptest.NewServer(chatStream(0, "Hello", ",", " world"))
	defer srv.Close()

	url, format, err := probe.ResolveURL(srv.URL, "openai-chat")
	if err != nil {
		panic(err)
	}
	target := probe.Target{URL: url, Format: format, Request: adapters.Request{Model: "m", Prompt: "Say hello"}}
	rec := probe.Stream(context.Background(), target, probe.Options{}, &record.Record{}, nil)
	fmt.Println("status:", rec.Status)
	fmt.Println("content frames:", rec.ContentFrames)
	fmt.Printf("text: %q\n", rec.Text())
	fmt.Println("ttft measured:", rec.TTFTMS != nil)

	agg := stats.NewAggregate(stats.DefaultStall)
	agg.Add(rec)
	summary := agg.Summary(stats.Workload{})
	gate, err := stats.ParseGate("ttft.p95 > 30s")
	if err != nil {
		panic(err)
	}
	fmt.Println("streams with a ttft:", stats.TTFT.Of(summary.Metrics).N)
	fmt.Println("gate", gate.Expr, "tripped:", gate.Eval(&summary).Tripped)
	// Output:
	// status: complete
	// content frames: 3
	// text: "Hello, world"
	// ttft measured: true
	// streams with a ttft: 1
	// gate ttft.p95 > 30s tripped: false
}

// A handler that waits 250 ms before each of its three words measures as
// such (TTFT 250 ms, end to end 750 ms): in a synctest bubble, on an in-memory network
// (probe.Options.Dial), the waits pass on the bubble's clock, so the
// figures are exact whatever the machine's load.
func TestStreamMeasuresAHandlersTTFT(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.NewServer(chatStream(250*time.Millisecond, "one", " two", " three"))
		defer srv.Close()
		url, format, err := probe.ResolveURL(srv.URL, "openai-chat")
		if err != nil {
			t.Fatal(err)
		}
		target := probe.Target{URL: url, Format: format, Request: adapters.Request{Model: "m", Prompt: "count"}}
		rec := probe.Stream(context.Background(), target, probe.Options{Dial: srv.Dial}, &record.Record{}, nil)
		if rec.Status != record.StatusComplete || rec.Text() != "one two three" {
			t.Fatalf("status %s, text %q; want complete, %q", rec.Status, rec.Text(), "one two three")
		}
		if rec.TTFTMS == nil || *rec.TTFTMS != 250 {
			t.Errorf("ttft %v, want 250 ms", rec.TTFTMS)
		}
		if rec.E2EMS == nil || *rec.E2EMS != 750 {
			t.Errorf("e2e %v, want 750 ms (three words 250 ms apart)", rec.E2EMS)
		}
	})
}
