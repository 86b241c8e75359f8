package relay_test

import (
	"bytes"
	"compress/gzip"
	"compress/zlib"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/iotest"
	"time"

	"github.com/andybalholm/brotli"
	"github.com/klauspost/compress/zstd"

	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/record"
)

// proxyTo starts drip record in front of h and returns its URL and a
// function that waits for the records.
func proxyTo(t *testing.T, ctx context.Context, h http.Handler, o relay.Options) (string, func() []*record.Record) {
	t.Helper()
	_, base, records := startProxy(t, ctx, h, o)
	return base, records
}

// startProxy is proxyTo that also returns the proxy, for its Stats.
func startProxy(t *testing.T, ctx context.Context, h http.Handler, o relay.Options) (*relay.Proxy, string, func() []*record.Record) {
	t.Helper()
	up := httptest.NewServer(h)
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	if o.Upstream != nil { // a base path and query of the caller's, on the test server
		u.Path, u.RawQuery = o.Upstream.Path, o.Upstream.RawQuery
	}
	o.Upstream = u
	var (
		mu   sync.Mutex
		recs []*record.Record
	)
	p := relay.New(ctx, o, func(r *record.Record) error {
		mu.Lock()
		recs = append(recs, r)
		mu.Unlock()
		return nil
	})
	srv := httptest.NewServer(p)
	t.Cleanup(srv.Close)
	return p, srv.URL, func() []*record.Record {
		p.Wait()
		mu.Lock()
		defer mu.Unlock()
		return recs
	}
}

// rawClient neither asks for nor undoes compression: it sees the bytes.
var rawClient = &http.Client{Transport: &http.Transport{DisableCompression: true}}

const sse = "data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hello\"}}]}\n\n" +
	"data: {\"id\":\"c1\",\"object\":\"chat.completion.chunk\",\"choices\":[{\"index\":0,\"delta\":{\"content\":\" world\"}}]}\n\n" +
	"data: [DONE]\n\n"

func TestNonStreamingRequestIsPassedThroughAndRecordedWithoutFrames(t *testing.T) {
	body := `{"object":"list","data":[{"id":"m1"}]}`
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, body)
	}), relay.Options{})
	req, _ := http.NewRequest("GET", base+"/v1/models", nil)
	req.Header.Set("Authorization", "Bearer sk-hidden")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != body {
		t.Errorf("client got %q, want %q", got, body)
	}
	recs := records()
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	r := recs[0]
	if r.Phase != record.PhasePassthrough || len(r.Frames) != 0 || r.Exchange.Streamed {
		t.Errorf("phase %s, %d frames, streamed %v; want passthrough, none, false", r.Phase, len(r.Frames), r.Exchange.Streamed)
	}
	if r.Status != record.StatusComplete || r.Error != nil {
		t.Errorf("status %s, error %+v; want a whole answer complete, without error", r.Status, r.Error)
	}
	if r.Exchange.Method != "GET" || r.Exchange.Path != "/v1/models" || r.Exchange.Response != body {
		t.Errorf("exchange %s %s %q", r.Exchange.Method, r.Exchange.Path, r.Exchange.Response)
	}
	if strings.Join(r.Exchange.Removed, ",") != "authorization" {
		t.Errorf("removed %v, want [authorization]", r.Exchange.Removed)
	}
}

// encoders write each SSE event compressed and flushed, as a compressing
// server streams: one call per event, then close.
var encoders = map[string]func(w io.Writer) (write func([]byte), close func()){
	"gzip": func(w io.Writer) (func([]byte), func()) {
		z := gzip.NewWriter(w)
		return func(b []byte) { z.Write(b); z.Flush() }, func() { z.Close() }
	},
	"deflate": func(w io.Writer) (func([]byte), func()) {
		z := zlib.NewWriter(w)
		return func(b []byte) { z.Write(b); z.Flush() }, func() { z.Close() }
	},
	"br": func(w io.Writer) (func([]byte), func()) {
		z := brotli.NewWriter(w)
		return func(b []byte) { z.Write(b); z.Flush() }, func() { z.Close() }
	},
	"zstd": func(w io.Writer) (func([]byte), func()) {
		z, _ := zstd.NewWriter(w)
		return func(b []byte) { z.Write(b); z.Flush() }, func() { z.Close() }
	},
	// compress (LZW) is an encoding drip does not decode: the bytes sent
	// are the body as is, which is all the test needs of it.
	"compress": func(w io.Writer) (func([]byte), func()) {
		return func(b []byte) { w.Write(b) }, func() {}
	},
}

// compressedUpstream streams sse in enc, event by event, each flushed, and
// returns what it sent on the wire.
func compressedUpstream(enc string) (http.Handler, *bytes.Buffer) {
	var wire bytes.Buffer
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", enc)
		rc := http.NewResponseController(w)
		write, closeEnc := encoders[enc](&wire)
		sent := 0
		flush := func() { w.Write(wire.Bytes()[sent:]); sent = wire.Len(); rc.Flush() }
		for _, ev := range strings.SplitAfter(sse, "\n\n") {
			if ev != "" {
				write([]byte(ev))
				flush()
			}
		}
		closeEnc()
		flush()
	}), &wire
}

// A compressed stream reaches the client byte for byte as the upstream
// sent it; the record holds it decoded, with its frames, for gzip, deflate
// br and zstd. compress, which drip cannot decode, is kept as it came and
// says so.
func TestCompressedResponseIsPassedThroughUnchangedAndDecodedForTheRecord(t *testing.T) {
	for _, enc := range []string{"gzip", "deflate", "br", "zstd", "compress"} {
		t.Run(enc, func(t *testing.T) {
			h, wire := compressedUpstream(enc)
			base, records := proxyTo(t, context.Background(), h, relay.Options{})
			req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
			req.Header.Set("Accept-Encoding", enc)
			resp, err := rawClient.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if !bytes.Equal(got, wire.Bytes()) || resp.Header.Get("Content-Encoding") != enc {
				t.Errorf("client got %d bytes (encoding %q), want the upstream's %d %s bytes unchanged", len(got), resp.Header.Get("Content-Encoding"), wire.Len(), enc)
			}
			r := records()[0]
			if r.ContentEncoding != enc {
				t.Errorf("record's content encoding %q, want %q", r.ContentEncoding, enc)
			}
			if enc == "compress" {
				if r.Exchange.ContentEncoding != "compress" || !bytes.Equal(r.Exchange.ResponseBody(), wire.Bytes()) || len(r.Frames) != 0 ||
					r.Error == nil || !strings.Contains(r.Error.Message, "kept as it came, undecoded") {
					t.Errorf("exchange encoding %q, %d frames, body kept as sent %v, error %+v; want compress kept as it came, no frames, an error saying so",
						r.Exchange.ContentEncoding, len(r.Frames), bytes.Equal(r.Exchange.ResponseBody(), wire.Bytes()), r.Error)
				}
				return
			}
			if r.Format != "openai-chat" || r.Status != record.StatusComplete || r.Text() != "Hello world" {
				t.Errorf("record %s %s %q (%+v), want openai-chat complete \"Hello world\"", r.Format, r.Status, r.Text(), r.Error)
			}
			if r.Exchange.Response != sse || r.Exchange.ContentEncoding != "" {
				t.Errorf("exchange encoding %q, body %q; want it decoded", r.Exchange.ContentEncoding, r.Exchange.Response)
			}
		})
	}
}

// Past either per-stream bound the client still gets every byte, and the
// record keeps what came before the bound, marked limit.
func TestResponseOverABoundReachesTheClientAndIsRecordedAsLimit(t *testing.T) {
	for _, c := range []struct {
		name  string
		o     relay.Options
		check func(r *record.Record) string
	}{
		{"max-bytes", relay.Options{MaxBytes: 100}, func(r *record.Record) string {
			if !r.Exchange.Clipped || len(r.Exchange.Response) != 100 || r.Error == nil || r.Error.Class != record.ErrLimit || !strings.Contains(r.Error.Message, "--max-bytes") {
				return fmt.Sprintf("clipped %v, kept %d bytes, error %+v; want clipped, 100, class limit naming --max-bytes", r.Exchange.Clipped, len(r.Exchange.Response), r.Error)
			}
			return ""
		}},
		{"max-frames", relay.Options{MaxFrames: 1}, func(r *record.Record) string {
			if len(r.Frames) != 1 || r.Error == nil || r.Error.Class != record.ErrLimit || !strings.Contains(r.Error.Message, "--max-frames") {
				return fmt.Sprintf("%d frames kept, error %+v; want 1 and class limit naming --max-frames", len(r.Frames), r.Error)
			}
			return ""
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				w.Header().Set("Content-Type", "text/event-stream")
				io.WriteString(w, sse)
			}), c.o)
			resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			got, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if string(got) != sse {
				t.Errorf("client got %d bytes, want all %d", len(got), len(sse))
			}
			if msg := c.check(records()[0]); msg != "" {
				t.Error(msg)
			}
		})
	}
}

func TestStoppingCancelsExchangesInFlightAndRecordsThem(t *testing.T) {
	ctx, stop := context.WithCancel(context.Background())
	defer stop()
	release := make(chan struct{})
	defer close(release)
	p, base, records := startProxy(t, ctx, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, strings.SplitAfter(sse, "\n\n")[0])
		http.NewResponseController(w).Flush()
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}), relay.Options{})
	resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	first := make([]byte, 10)
	if _, err := io.ReadFull(resp.Body, first); err != nil {
		t.Fatal(err)
	}
	stop() // Ctrl-C
	if _, err := io.Copy(io.Discard, resp.Body); err == nil {
		t.Error("the client's body ended cleanly when drip record stopped mid-stream; want it cut")
	}
	resp.Body.Close()
	recs := records()
	if len(recs) != 1 {
		t.Fatalf("%d records, want the one in flight", len(recs))
	}
	r := recs[0]
	if r.Status != record.StatusCanceled || r.Text() != "Hello" {
		t.Errorf("status %s, text %q; want canceled with the frame that arrived, \"Hello\"", r.Status, r.Text())
	}
	if n, failed := p.Stats.Canceled.Load(), p.Stats.Failed.Load(); n != 1 || failed != 0 {
		t.Errorf("Stats count %d canceled, %d failed; want 1 canceled (drip record's line says so)", n, failed)
	}
}

func TestUpstreamDownIsRecordedAsAFailedStream(t *testing.T) {
	dead := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(dead.URL)
	dead.Close()
	var recs []*record.Record
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error { recs = append(recs, r); return nil })
	w := httptest.NewRecorder()
	p.ServeHTTP(w, httptest.NewRequest("POST", "/v1/chat/completions", strings.NewReader(`{"stream":true}`)))
	p.Wait()
	if w.Code != http.StatusBadGateway {
		t.Errorf("client got %d, want 502", w.Code)
	}
	if len(recs) != 1 || recs[0].Status != record.StatusFailed || recs[0].Error.Class != record.ErrRefused {
		t.Errorf("records %+v, want one failed stream, class refused", recs)
	}
}

// The request's names are found for the record after forwarding: a
// stream's and a failed exchange's records still carry them.
func TestRecordsNameTheirRequestsModelPromptAndTarget(t *testing.T) {
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}), relay.Options{})
	bodies := []string{`{"model":"gpt-x","stream":true}`, `{"model":"gpt-x","stream":true}`, `{"model":"gpt-y","stream":true}`}
	for _, b := range bodies {
		resp, err := rawClient.Post(base+"/v1/chat/completions?api-key=sk-hidden", "application/json", strings.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	recs := records()
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	byModel := map[string][]string{}
	for _, r := range recs {
		if !r.Exchange.Streamed || !strings.HasPrefix(r.PromptID, "req-") || !strings.HasSuffix(r.Target, "/v1/chat/completions") {
			t.Errorf("streamed %v, prompt id %q, target %q; want a stream, req-…, the upstream's /v1/chat/completions without the query", r.Exchange.Streamed, r.PromptID, r.Target)
		}
		byModel[r.Model] = append(byModel[r.Model], r.PromptID)
	}
	x, y := byModel["gpt-x"], byModel["gpt-y"]
	if len(x) != 2 || len(y) != 1 || x[0] != x[1] || x[0] == y[0] {
		t.Errorf("prompt ids by model %v; want gpt-x's two identical requests to share one, gpt-y's another", byModel)
	}

	dead := httptest.NewServer(http.NotFoundHandler())
	u, _ := url.Parse(dead.URL)
	dead.Close()
	var failed []*record.Record
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error { failed = append(failed, r); return nil })
	p.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("POST", "/model/claude-z/invoke-with-response-stream", strings.NewReader(`{}`)))
	p.Wait()
	if len(failed) != 1 || failed[0].Model != "claude-z" || !failed[0].Exchange.Streamed || failed[0].PromptID == "" {
		t.Errorf("failed records %+v; want one, model claude-z from the path, a stream, with a prompt id", failed)
	}
}

// An upstream that breaks off mid-stream breaks the client's response off
// too: a chunked body that ended cleanly would pass half an answer (here
// without its [DONE]) for a whole one.
func TestUpstreamCutMidStreamCutsTheClient(t *testing.T) {
	first := strings.SplitAfter(sse, "\n\n")[0]
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, first)
		http.NewResponseController(w).Flush()
		panic(http.ErrAbortHandler) // the upstream's connection drops
	}), relay.Options{})
	resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err == nil || string(got) != first {
		t.Errorf("client read %q, error %v; want the first event, then an error (the body cut, not ended)", got, err)
	}
	if r := records()[0]; r.Status != record.StatusFailed || r.Text() != "Hello" {
		t.Errorf("record %s with %q; want failed with the frame that arrived, \"Hello\"", r.Status, r.Text())
	}
}

// An error status answers no stream: the record names the format the path
// speaks (a 429's JSON body is not ndjson), holds no frames and keeps the
// Retry-After, as drip run's record of the same answer does.
func TestErrorStatusIsRecordedAsDripRunRecordsIt(t *testing.T) {
	const body = `{"error":{"code":429,"message":"Rate limit reached","type":"http_429"}}`
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Retry-After", "2")
		w.WriteHeader(http.StatusTooManyRequests)
		io.WriteString(w, body)
	}), relay.Options{})
	resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 429 || string(got) != body {
		t.Errorf("client got %d %q, want the upstream's 429 and body", resp.StatusCode, got)
	}
	r := records()[0]
	if r.Format != "openai-chat" || len(r.Frames) != 0 || r.Error == nil || r.Error.Class != record.ErrHTTP429 || r.Error.RetryAfter != "2" {
		t.Errorf("format %q, %d frames, error %+v; want openai-chat, none, class http_429 with retry_after 2", r.Format, len(r.Frames), r.Error)
	}
	if r.Exchange.Response != body {
		t.Errorf("kept response %q, want the body to serve back", r.Exchange.Response)
	}
}

// A request body longer than a record keeps still reaches the upstream
// whole (it was refused with a 413 the upstream never sent); the record
// serves the answer back but keeps none of the body, says so, and is not
// replayed.
func TestRequestBodyTooLongToKeepIsForwardedWhole(t *testing.T) {
	sent := bytes.Repeat([]byte("x"), 32<<20+1000)
	var got atomic.Int64
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		n, _ := io.Copy(io.Discard, r.Body)
		got.Store(n)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}), relay.Options{})
	resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader(sent))
	if err != nil {
		t.Fatal(err)
	}
	answer, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(answer) != sse || got.Load() != int64(len(sent)) {
		t.Errorf("client got %d (%d bytes), upstream got %d of %d bytes; want 200, the stream, the whole body", resp.StatusCode, len(answer), got.Load(), len(sent))
	}
	r := records()[0]
	if r.Exchange.BodyOmitted == "" || r.Exchange.RequestBody() != nil || r.Text() != "Hello world" {
		t.Errorf("body omitted %q, %d body bytes kept, text %q; want it said, none kept, the stream recorded", r.Exchange.BodyOmitted, len(r.Exchange.RequestBody()), r.Text())
	}
	if n := len(replay.Streams([]*record.Record{r})); n != 0 {
		t.Errorf("replay would send %d streams without their body, want 0", n)
	}
}

// A gzip bomb under --max-bytes on the wire, far over it decoded, reaches
// the client whole and is recorded decoded up to --max-bytes, marked
// limit: its record line stays near the bound.
func TestCompressedResponseOverMaxBytesDecodedIsRecordedAsLimit(t *testing.T) {
	const maxBytes = 64 << 10
	var wire bytes.Buffer
	z := gzip.NewWriter(&wire)
	z.Write(bytes.Repeat([]byte(strings.SplitAfter(sse, "\n\n")[0]), 4<<20/len(sse)))
	z.Close()
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(wire.Bytes())
	}), relay.Options{MaxBytes: maxBytes})
	resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if !bytes.Equal(got, wire.Bytes()) || wire.Len() >= maxBytes {
		t.Fatalf("client got %d bytes, want the upstream's %d (under %d)", len(got), wire.Len(), maxBytes)
	}
	r := records()[0]
	line, _ := json.Marshal(r)
	if r.Error == nil || r.Error.Class != record.ErrLimit || len(r.Exchange.Response) != maxBytes || len(line) > 8*maxBytes {
		t.Errorf("error %+v, %d bytes kept, a %d-byte line; want class limit, %d bytes, a line under %d", r.Error, len(r.Exchange.Response), len(line), maxBytes, 8*maxBytes)
	}
}

// oneByteUpstream answers every request with body, one byte a read.
type oneByteUpstream string

func (b oneByteUpstream) RoundTrip(r *http.Request) (*http.Response, error) {
	return &http.Response{StatusCode: 200, Header: http.Header{"Content-Type": {"text/event-stream"}},
		Body: io.NopCloser(iotest.OneByteReader(strings.NewReader(string(b)))), Request: r}, nil
}

// A stream in more reads than --max-frames, events split across reads, is
// marked limit, and keeps the frames of the reads before the merged one:
// those after it would have the last read's time, one invented gap (a
// false stall) then none.
func TestReadsPastMaxFramesAreRecordedAsLimitWithoutTheirFrames(t *testing.T) {
	var tick atomic.Int64 // 1 ms a look at the clock: about 1 ms a byte
	clock := func() time.Time { return time.UnixMilli(tick.Add(1)) }
	ev := strings.SplitAfter(sse, "\n\n")
	body, first := ev[0]+ev[1]+ev[1]+ev[2], len(ev[0]) // each event's gap about 110 ms, all past the first 230 ms
	o := relay.Options{Client: &http.Client{Transport: oneByteUpstream(body)}, Clock: clock, StallMS: 150, MaxFrames: first + 1}
	base, records := proxyTo(t, context.Background(), http.NotFoundHandler(), o)
	resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	got, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(got) != body {
		t.Errorf("client got %q, want all of it", got)
	}
	r := records()[0]
	if r.Error == nil || r.Error.Class != record.ErrLimit || !strings.Contains(r.Error.Message, "--max-frames") {
		t.Errorf("error %+v, want class limit naming --max-frames", r.Error)
	}
	if len(r.Frames) != 1 || len(r.Stalls) != 0 || len(r.Exchange.Reads) != first+2 {
		t.Errorf("%d frames, stalls %+v, %d reads; want the first event's frame alone, no stall, %d reads", len(r.Frames), r.Stalls, len(r.Exchange.Reads), first+2)
	}
}

// Reads merged past --max-frames that hold more frames than the bound
// too: the record keeps none of them and names the reads, not a frame
// count it does not hold.
func TestFramesPastTheBoundInTheMergedReadsAreNotCounted(t *testing.T) {
	o := relay.Options{Client: &http.Client{Transport: oneByteUpstream(sse)}, MaxFrames: 2}
	base, records := proxyTo(t, context.Background(), http.NotFoundHandler(), o)
	resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	r := records()[0]
	if len(r.Frames) != 0 || r.Error == nil || r.Error.Class != record.ErrLimit || !strings.Contains(r.Error.Message, "more than 2 reads") {
		t.Errorf("%d frames, error %+v; want none, class limit naming the reads past --max-frames", len(r.Frames), r.Error)
	}
}
