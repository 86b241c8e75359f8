package probe_test

import (
	"context"
	"io"
	"net/http"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

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

// BenchmarkStreamStartFinish measures one stream's start and finish,
// everything the probe does per stream but its reads: what 1,000 streams
// starting or ending together pay at once. It reports the allocations and
// the process's CPU time a stream, and fails over streamAllocsBudget or
// streamCPUBudgetUS (.ci/stream-budget runs it in CI). docs/performance.md
// has the figures.
func BenchmarkStreamStartFinish(b *testing.B) {
	t, o := streamPath(b)
	ctx := context.Background()
	b.ReportAllocs()
	var m0, m1 runtime.MemStats
	runtime.ReadMemStats(&m0)
	cpu0 := cpuTime()
	for b.Loop() {
		rec := probe.Stream(ctx, t, o, &record.Record{}, nil)
		if rec.Status != record.StatusComplete {
			b.Fatalf("stream %s: %+v", rec.Status, rec.Error)
		}
	}
	cpuUS := float64((cpuTime() - cpu0).Microseconds()) / float64(b.N)
	runtime.ReadMemStats(&m1)
	allocs := float64(m1.Mallocs-m0.Mallocs) / float64(b.N)
	b.ReportMetric(cpuUS, "cpu-µs/stream")
	b.ReportMetric(allocs, "allocs/stream")
	// A failed benchmark prints no result line, so the log keeps both.
	b.Logf("%.1f allocs/stream %.1f cpu-µs/stream", allocs, cpuUS)
	if allocs > streamAllocsBudget {
		b.Errorf("%.1f allocations a stream, over %d", allocs, streamAllocsBudget)
	}
	if cpuUS > streamCPUBudgetUS {
		b.Errorf("%.1f µs of CPU a stream, over %d", cpuUS, streamCPUBudgetUS)
	}
}

// The budgets of one stream's start and finish. A stream allocated 92
// times and took 27–44 µs of CPU on the shared 2-core machine; when each
// stream read every thread's /proc files it allocated about 1,000 times
// and took milliseconds. The allocations hardly move with the machine's
// load, so their bound is close. The CPU bound leaves room for a loaded
// machine's slower caches and the GC's share.
const (
	streamAllocsBudget = 110
	streamCPUBudgetUS  = 150
)

// cpuTime is the process's CPU time so far, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
