package probe

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/record"
)

// The idle watch expires a timeout after the last read, not after the
// first: a read only stores its time, and the timer re-arms itself.
func TestIdleWatchCountsFromTheLastRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		// The timer's callback runs on a goroutine of its own: atomic, so the
		// race detector sees the hand-over synctest.Wait makes.
		var expiredNS atomic.Int64
		expired := func() time.Duration { return time.Duration(expiredNS.Load()) }
		start := time.Now()
		w := WatchIdle(100*time.Millisecond, time.Now, func() { expiredNS.Store(int64(time.Since(start))) })
		defer w.Stop()
		time.Sleep(60 * time.Millisecond)
		w.Touch(time.Now())
		time.Sleep(90 * time.Millisecond)
		w.Touch(time.Now())
		time.Sleep(99 * time.Millisecond)
		synctest.Wait()
		if expired() != 0 {
			t.Fatalf("expired at %v, 99 ms after a read", expired())
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if expired() != 250*time.Millisecond {
			t.Errorf("expired at %v, want 250ms (100 ms after the read at 150 ms)", expired())
		}
	})
}

// A stopped watch never expires, even when its timer was already due.
func TestIdleWatchStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var fired atomic.Bool
		w := WatchIdle(10*time.Millisecond, time.Now, func() { fired.Store(true) })
		w.Stop()
		time.Sleep(time.Second)
		synctest.Wait()
		if fired.Load() {
			t.Error("a stopped watch expired")
		}
	})
}

// A stream past MaxConnecting waits for a turn, records the wait on its
// clock, and sends its request after it; every turn is given back.
func TestStreamWaitsForAConnectTurn(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n"))
	}))
	defer srv.Close()
	for range MaxConnecting {
		connecting <- struct{}{}
	}
	var mu sync.Mutex
	now := time.Unix(0, 0)
	waiting := make(chan struct{}) // closed at the first reading: with every turn taken, the wait's start
	clock := func() time.Time {    // 10 ms a reading
		mu.Lock()
		defer mu.Unlock()
		if now.Equal(time.Unix(0, 0)) {
			close(waiting)
		}
		now = now.Add(10 * time.Millisecond)
		return now
	}
	u, f, _ := ResolveURL(srv.URL, "openai-chat")
	started := make(chan bool, 1)
	observe := func(e Event) {
		if e.Type == EventStart {
			started <- true
		}
	}
	done := make(chan *record.Record)
	go func() {
		done <- Stream(context.Background(), Target{URL: u, Format: f}, Options{Clock: clock}, &record.Record{}, observe)
	}()
	<-waiting
	select {
	case <-started:
		t.Fatal("the request started while every turn was taken")
	default:
	}
	<-connecting // one stream got its connection
	r := <-done
	for range MaxConnecting - 1 {
		<-connecting
	}
	if r.Status != record.StatusComplete || r.ConnectWaitMS == nil || *r.ConnectWaitMS != 10 {
		t.Fatalf("status %s, connect wait %v, want complete after a wait of one clock step (10 ms)", r.Status, num(r.ConnectWaitMS))
	}
	if len(connecting) != 0 {
		t.Errorf("%d turns still taken after the stream ended", len(connecting))
	}
}

func num(p *float64) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprint(*p)
}

// pings is a body of n keepalives, one a read.
type pings struct{ left int }

func (p *pings) Read(b []byte) (int, error) {
	if p.left == 0 {
		return 0, io.EOF
	}
	p.left--
	return copy(b, ": ping\n\n"), nil
}

// A read costs the read loop no allocation: past the keepalives the record
// keeps, a stream of 1,200 pings allocates what one of 200 does. (Checking
// every read's error for a gzip one cost one allocation a read.)
func TestAReadAllocatesNothing(t *testing.T) {
	allocs := func(n int) float64 {
		return testing.AllocsPerRun(10, func() {
			idle := WatchIdle(time.Hour, time.Now, func() {})
			defer idle.Stop()
			rec := &record.Record{}
			fr := newFrameRecorder(adapters.Lookup("openai-chat"), 0, 0, rec, func(Event) {})
			if err := readBody(context.Background(), &pings{n}, fr, Options{Clock: time.Now, MaxBytes: DefaultMaxBytes}, time.Now(), idle); err != nil || rec.Keepalives != n {
				t.Fatalf("%d pings: error %v, %d keepalives", n, err, rec.Keepalives)
			}
		})
	}
	short, long := allocs(keptKeepalives*2), allocs(keptKeepalives*2+1000)
	if perRead := (long - short) / 1000; perRead != 0 {
		t.Errorf("%v allocations a read (%v for 200 pings, %v for 1,200); want 0", perRead, short, long)
	}
}
