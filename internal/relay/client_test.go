package relay_test

import (
	"bufio"
	"context"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/record"
)

// endless streams an event every 100 ms until its client goes.
var endless = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/event-stream")
	for r.Context().Err() == nil {
		fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", strings.Repeat("word ", 200))
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(100 * time.Millisecond):
		}
	}
})

// inBubble starts drip record's proxy in front of up on an in-memory
// network, inside a synctest bubble: its records, once every exchange has
// been written.
func inBubble(t *testing.T, ctx context.Context, up http.Handler, o relay.Options) (*relay.Proxy, *memnet.Server, func() []*record.Record) {
	upstream := memnet.NewServer(up)
	t.Cleanup(upstream.Close)
	o.Upstream, _ = url.Parse(upstream.URL)
	o.Client = upstream.Client()
	var (
		mu   sync.Mutex
		recs []*record.Record
	)
	p := relay.New(ctx, o, func(r *record.Record) error { mu.Lock(); defer mu.Unlock(); recs = append(recs, r); return nil })
	proxy := memnet.NewServer(p)
	t.Cleanup(proxy.Close)
	return p, proxy, func() []*record.Record { p.Wait(); mu.Lock(); defer mu.Unlock(); return recs }
}

// A client that stops reading a stream is let go after the idle timeout
// (nothing it read in that time), or at the exchange's total timeout,
// whichever comes first, and the exchange is recorded as it ended. Today's
// code waited on the write for ever (under synctest: a deadlock).
func TestAClientThatStopsReadingIsLetGo(t *testing.T) {
	for _, c := range []struct {
		idle, total time.Duration
		class, says string
	}{
		{5 * time.Second, time.Hour, record.ErrCanceled, "read nothing"},
		{time.Minute, 8 * time.Second, record.ErrTimeoutTotal, "total timeout"},
	} {
		synctest.Test(t, func(t *testing.T) {
			_, proxy, records := inBubble(t, context.Background(), endless, relay.Options{IdleTimeout: c.idle, Timeout: c.total})
			resp, err := proxy.Client().Post(proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close() // never read
			recs := records()
			want := min(c.idle, c.total)
			if len(recs) != 1 || recs[0].Error == nil || recs[0].Error.Class != c.class || !strings.Contains(recs[0].Error.Message, c.says) ||
				recs[0].DurationMS < float64(want.Milliseconds()) || recs[0].DurationMS > float64(want.Milliseconds())+1000 {
				t.Fatalf("idle %s, total %s: %d records %+v (%+v); want one ended after %s, %s", c.idle, c.total, len(recs), recs[0].Error, recs[0].DurationMS, want, c.class)
			}
		})
	}
}

// stalledBody sends a request whose body stops after 10 of its 100 bytes
// and returns the response, when one comes.
func stalledBody(t *testing.T, proxy *memnet.Server) (*http.Response, error) {
	conn, err := proxy.Dial(context.Background(), "tcp", "")
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { conn.Close() })
	io.WriteString(conn, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"stream\":")
	return http.ReadResponse(bufio.NewReader(conn), nil)
}

// A client that stalls its request body is answered 408 after the idle
// timeout; nothing went upstream and nothing is recorded, but the count
// says so. Today's code waited on the body for ever.
func TestAClientThatStallsItsBodyIsLetGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		p, proxy, records := inBubble(t, context.Background(), endless, relay.Options{IdleTimeout: 5 * time.Second})
		start := time.Now()
		resp, err := stalledBody(t, proxy)
		if err != nil || resp.StatusCode != http.StatusRequestTimeout || time.Since(start) != 5*time.Second {
			t.Fatalf("%v %v after %s; want 408 after the idle timeout, 5s", resp, err, time.Since(start))
		}
		if n := len(records()); n != 0 || p.Stats.Unread.Load() != 1 {
			t.Errorf("%d records, %d unread; want none recorded, one counted", n, p.Stats.Unread.Load())
		}
	})
}

// Once drip record stops, no client holds it: a stalled body and a
// stream nobody reads end at once, the stream recorded as canceled.
// Today's code waited on both for ever.
func TestStoppingWaitsOnNoClient(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ctx, stop := context.WithCancel(context.Background())
		p, proxy, records := inBubble(t, ctx, endless, relay.Options{})
		resp, err := proxy.Client().Post(proxy.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close() // never read
		go stalledBody(t, proxy)
		time.Sleep(time.Second)
		synctest.Wait()
		stop()
		recs := records()
		if len(recs) != 1 || recs[0].Status != record.StatusCanceled || recs[0].Error.Message != "drip record stopped" || p.Stats.Unread.Load() != 1 {
			t.Errorf("%d records %+v, %d unread; want the stream canceled by the stop, the stalled body counted", len(recs), recs, p.Stats.Unread.Load())
		}
		if p.Stats.InFlight.Load() != 0 {
			t.Errorf("%d exchanges still in flight", p.Stats.InFlight.Load())
		}
	})
}
