package recorder_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"runtime/debug"
	"slices"
	"strconv"
	"sync"
	"testing"
	"time"

	"github.com/driplab/drip/internal/gctune"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/recorder"
	"github.com/driplab/drip/stats"
)

// BenchmarkAddedLatency measures what drip record adds to each frame's
// trip: an upstream writes frames 10 ms apart, each carrying its write time
// on a clock shared with the client, and the client notes when it read
// each, once directly and once through the proxy, in alternating passes
// (b.N of each) so load from elsewhere hits both alike. The streams start
// spread over one gap, as independent clients do; started in the same
// instant, every frame of all streams would be written in one burst, and
// the burst's queue on two cores, not the proxy, would be the tail.
// Reported: the p50 and p99 of the per-frame latency both ways, and their
// differences.
//
//	go test ./recorder -run '^$' -bench AddedLatency -benchtime 5x
func BenchmarkAddedLatency(b *testing.B) {
	defer debug.SetGCPercent(debug.SetGCPercent(gctune.GCPercent)) // as drip record sets it
	for _, streams := range []int{1, 100} {
		b.Run(fmt.Sprintf("streams=%d", streams), func(b *testing.B) {
			origin := time.Now()
			up := httptest.NewServer(framesHandler(origin, 50, frameGap))
			defer up.Close()
			u, _ := url.Parse(up.URL)
			p := recorder.New(context.Background(), recorder.Options{Upstream: u}, func(*record.Record) {})
			proxy := httptest.NewServer(p)
			defer proxy.Close()
			client := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 1000, DisableCompression: true}}
			var direct, proxied []float64
			for b.Loop() {
				direct = append(direct, pass(b, client, up.URL, origin, streams)...)
				proxied = append(proxied, pass(b, client, proxy.URL, origin, streams)...)
			}
			slices.Sort(direct)
			slices.Sort(proxied)
			d50, d99 := stats.Percentile(direct, 50), stats.Percentile(direct, 99)
			p50, p99 := stats.Percentile(proxied, 50), stats.Percentile(proxied, 99)
			b.ReportMetric(d50, "direct-p50-ms")
			b.ReportMetric(d99, "direct-p99-ms")
			b.ReportMetric(p50, "proxied-p50-ms")
			b.ReportMetric(p99, "proxied-p99-ms")
			b.ReportMetric(p50-d50, "added-p50-ms")
			b.ReportMetric(p99-d99, "added-p99-ms")
			b.ReportMetric(float64(len(proxied)), "frames")
		})
	}
}

const frameGap = 10 * time.Millisecond

// framesHandler writes n SSE frames gap apart, each "data: T" with T its
// write time in ns since origin, flushed one by one.
func framesHandler(origin time.Time, n int, gap time.Duration) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		rc := http.NewResponseController(w)
		start := time.Now()
		for i := range n {
			time.Sleep(time.Until(start.Add(time.Duration(i) * gap)))
			fmt.Fprintf(w, "data: %d\n\n", time.Since(origin).Nanoseconds())
			rc.Flush()
		}
	})
}

// pass streams from base with that many clients at once and returns every
// frame's latency (read − write) in ms.
func pass(b *testing.B, client *http.Client, base string, origin time.Time, streams int) []float64 {
	var (
		mu  sync.Mutex
		all []float64
		wg  sync.WaitGroup
	)
	for k := range streams {
		wg.Go(func() {
			time.Sleep(time.Duration(k) * frameGap / time.Duration(streams))
			lat, err := readFrames(client, base, origin)
			if err != nil {
				b.Error(err)
			}
			mu.Lock()
			all = append(all, lat...)
			mu.Unlock()
		})
	}
	wg.Wait()
	return all
}

func readFrames(client *http.Client, base string, origin time.Time) ([]float64, error) {
	resp, err := client.Post(base+"/v1/chat/completions", "application/json", bytes.NewReader([]byte(`{"stream":true}`)))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	var lat []float64
	var pending []byte
	buf := make([]byte, 32<<10)
	for {
		n, err := resp.Body.Read(buf)
		now := time.Since(origin).Nanoseconds()
		pending = append(pending, buf[:n]...)
		for {
			i := bytes.Index(pending, []byte("\n\n"))
			if i < 0 {
				break
			}
			wrote, perr := strconv.ParseInt(string(bytes.TrimPrefix(pending[:i], []byte("data: "))), 10, 64)
			if perr != nil {
				return lat, perr
			}
			lat = append(lat, float64(now-wrote)/1e6)
			pending = pending[i+2:]
		}
		if err == io.EOF {
			return lat, nil
		}
		if err != nil {
			return lat, err
		}
	}
}
