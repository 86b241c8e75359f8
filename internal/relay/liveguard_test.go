package relay

import (
	"fmt"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// An id longer than maxLiveID is not kept: 1,100 requests with 1 MB ids
// would hold a gigabyte of ids for the hops endpoint.
func TestLiveKeepsNoOverlongID(t *testing.T) {
	t.Parallel()
	l := newLive()
	if lr := l.begin(strings.Repeat("x", maxLiveID+1)); lr != nil || len(l.by) != 0 {
		t.Errorf("an id of %d bytes kept (%d kept), want none", maxLiveID+1, len(l.by))
	}
	if lr := l.begin(strings.Repeat("x", maxLiveID)); lr == nil {
		t.Errorf("an id of %d bytes not kept", maxLiveID)
	}
}

// A second stream claiming a kept id is refused: the first keeps its
// times, and the newcomer's reads go nowhere.
func TestLiveRefusesAnIDAlreadyKept(t *testing.T) {
	t.Parallel()
	l := newLive()
	first := l.begin("run-0")
	l.read(first, record.Read{TMS: 1, N: 10}, 100)
	second := l.begin("run-0")
	l.read(second, record.Read{TMS: 2, N: 99}, 100)
	l.update(second, func(r *hops.Relayed) { r.Done = true })
	if got := l.by["run-0"]; got != first || len(got.Reads) != 1 || got.Reads[0].N != 10 || got.Done {
		t.Errorf("the id's times %+v, want the first stream's, one read of 10 bytes, running", got)
	}
}

// The reads the table keeps across streams are bounded: past maxReads a
// finished stream's go first, and a running stream past it keeps no more
// (and says so), whatever the streams' own bound.
func TestLiveBoundsTheReadsItKeeps(t *testing.T) {
	t.Parallel()
	l := newLive()
	l.maxReads = 1000
	done := l.begin("done-0")
	for i := range 600 {
		l.read(done, record.Read{TMS: float64(i), N: 1}, 100_000)
	}
	l.update(done, func(r *hops.Relayed) { r.Done = true })
	var running []*hops.Relayed
	for s := range 3 {
		lr := l.begin(fmt.Sprintf("run-%d", s))
		running = append(running, lr)
		for i := range 600 {
			l.read(lr, record.Read{TMS: float64(i), N: 1}, 100_000)
		}
	}
	kept := 0
	for _, lr := range l.by {
		kept += len(lr.Reads)
	}
	if _, ok := l.by["done-0"]; ok || kept > l.maxReads || l.reads != kept {
		t.Errorf("finished stream kept %v, %d reads kept (%d counted), want it gone and at most %d", ok, kept, l.reads, l.maxReads)
	}
	if last := running[2]; !last.Cut || len(last.Reads) >= 600 {
		t.Errorf("the last stream kept %d reads, cut %v: want fewer than 600 and cut", len(last.Reads), last.Cut)
	}
}
