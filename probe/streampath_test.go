package probe_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// cannedBody is the shortest whole stream: one content frame and the end.
const cannedBody = "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n"

// canned answers every request at once with cannedBody, no network: what
// is left of a stream is the probe's own start and finish.
type canned struct{}

func (canned) RoundTrip(req *http.Request) (*http.Response, error) {
	return &http.Response{
		StatusCode: http.StatusOK, Proto: "HTTP/1.1", ProtoMajor: 1, ProtoMinor: 1,
		Header:  http.Header{"Content-Type": {"text/event-stream"}},
		Body:    io.NopCloser(strings.NewReader(cannedBody)),
		Request: req,
	}, nil
}

// streamPath is a target and options whose streams are all start and
// finish: the request built, a turn to connect, the idle watch, the OS
// figures taken from the run's sampler, one read and the record derived.
func streamPath(tb testing.TB) (probe.Target, probe.Options) {
	u, f, err := probe.ResolveURL("http://bench.invalid", "openai-chat")
	if err != nil {
		tb.Fatal(err)
	}
	cpu := probe.StartCPUSampler()
	tb.Cleanup(cpu.Stop)
	t := probe.Target{URL: u, Format: f, Request: adapters.Request{Model: "m", Prompt: "hi", MaxTokens: 16}}
	return t, probe.Options{Client: &http.Client{Transport: canned{}}, CPU: cpu}
}

// The cost of one stream's start and finish, everything the probe does
// per stream but its reads: what 1,000 streams starting or ending together
// pay at once. docs/performance.md has the figure; it must not grow with
// the process's threads or the streams in flight.
func BenchmarkStreamStartFinish(b *testing.B) {
	t, o := streamPath(b)
	ctx := context.Background()
	b.ReportAllocs()
	for b.Loop() {
		rec := probe.Stream(ctx, t, o, &record.Record{}, nil)
		if rec.Status != record.StatusComplete {
			b.Fatalf("stream %s: %+v", rec.Status, rec.Error)
		}
	}
}

// A stream's start and finish cost the same however many threads the
// process has: 32 more threads add no allocation to a stream. Reading each
// thread's schedstat at every stream's start and end cost about 140
// allocations a thread a stream here, and its time grew the same way.
func TestStreamCostIsFlatInThreads(t *testing.T) {
	tg, o := streamPath(t)
	stream := func() { probe.Stream(context.Background(), tg, o, &record.Record{}, nil) }
	before := testing.AllocsPerRun(100, stream)
	var locked, done sync.WaitGroup
	release := make(chan struct{})
	for range 32 {
		locked.Add(1)
		done.Go(func() {
			runtime.LockOSThread() // its thread parks with it: one more thread
			locked.Done()
			<-release
		})
	}
	locked.Wait()
	after := testing.AllocsPerRun(100, stream)
	close(release)
	done.Wait()
	// The run's sampler reads every thread four times a second: a reading
	// that falls within the 100 streams adds a few allocations a thread,
	// shared by them.
	if after > before+16 {
		t.Errorf("%v allocations a stream with 32 more threads, %v before: the per-stream path grows with the threads", after, before)
	}
}
