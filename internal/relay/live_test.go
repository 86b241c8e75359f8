package relay

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// Past liveKept ids the hops endpoint lets a finished stream go first: a
// stream still running since before 1,034 others began and ended keeps
// its times (drip watch --relay asks for them mid-stream), and the oldest
// finished one is the first to go.
func TestLiveKeepsARunningStreamOverFinishedOnes(t *testing.T) {
	l := newLive()
	l.begin("run-0")
	for i := 1; i <= liveKept+10; i++ {
		l.update(l.begin(fmt.Sprintf("run-%d", i)), func(r *hops.Relayed) { r.Done = true })
	}
	_, running := l.by["run-0"]
	_, first := l.by["run-1"]
	_, last := l.by[fmt.Sprintf("run-%d", liveKept+10)]
	if !running || first || !last || len(l.by) != liveKept || len(l.order) != liveKept {
		t.Errorf("running kept %v, first finished kept %v, last kept %v, %d kept (%d in order); want true, false, true, %d",
			running, first, last, len(l.by), len(l.order), liveKept)
	}
}

// The endpoint serves a snapshot of a stream whose reads are still being
// appended: every answer's reads are a prefix of the stream's, and it
// ends done with all of them (run with -race: the copy shares nothing a
// read appends to).
func TestHopsHandlerServesASnapshotOfARunningStream(t *testing.T) {
	p := &Proxy{live: newLive()}
	lr := p.live.begin("run-0")
	h := p.HopsHandler()
	var want []record.Read
	for i := range 2000 {
		want = append(want, record.Read{TMS: float64(i), N: i + 1})
	}
	var wg sync.WaitGroup
	wg.Go(func() {
		for _, rd := range want {
			p.live.update(lr, func(l *hops.Relayed) { l.Reads = append(l.Reads, rd) })
		}
		p.live.update(lr, func(l *hops.Relayed) { l.Done = true })
	})
	for done := false; !done; {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest("GET", "/hops/run-0", nil))
		b, _ := io.ReadAll(w.Body)
		var got hops.Relayed
		if err := json.Unmarshal(b, &got); err != nil || !slices.Equal(got.Reads, want[:len(got.Reads)]) {
			t.Fatalf("served %d reads (%v), not a prefix of the stream's", len(got.Reads), err)
		}
		done = got.Done
		if done && len(got.Reads) != len(want) {
			t.Errorf("done with %d reads, want %d", len(got.Reads), len(want))
		}
	}
	wg.Wait()
}
