package probe_test

import (
	"context"
	"sync"
	"sync/atomic"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/probe"
)

// A bounded pacer stops at its count or at the first arrival due at or
// after its duration, and says how long until an arrival is due (negative
// when it is late).
func TestBoundedPacer(t *testing.T) {
	every := probe.ArrivalPacer(probe.ArrivalConstant, 10, 0) // one every 100 ms
	if wait, stop := probe.Bounded(every, 3, 0).Pace(150*time.Millisecond, 2); wait != 50*time.Millisecond || stop {
		t.Errorf("third of 3 at 150 ms: wait %v stop %v, want 50ms false", wait, stop)
	}
	if _, stop := probe.Bounded(every, 3, 0).Pace(0, 3); !stop {
		t.Error("a fourth arrival of 3 was not stopped")
	}
	if wait, stop := probe.Bounded(every, 0, time.Second).Pace(time.Second, 9); wait != -100*time.Millisecond || stop {
		t.Errorf("the arrival due at 900 ms, asked at 1 s: wait %v stop %v, want -100ms false", wait, stop)
	}
	if _, stop := probe.Bounded(every, 0, time.Second).Pace(0, 10); !stop {
		t.Error("the arrival due at the duration's end was not stopped")
	}
}

// A Poisson pacer asked twice about one arrival (as vegeta's loop asks
// again after a wait) gives the same time both times, and the same seed
// the same schedule.
func TestPoissonPacerRepeats(t *testing.T) {
	a, b := probe.ArrivalPacer(probe.ArrivalPoisson, 10, 7), probe.ArrivalPacer(probe.ArrivalPoisson, 10, 7)
	var last time.Duration
	for i := range uint64(5) {
		at := a(i)
		if a(i) != at || at <= last && i > 0 || b(i) != at {
			t.Errorf("seed 7, arrival %d: at %v, then %v; the other pacer %v; the one before %v", i, at, a(i), b(i), last)
		}
		last = at
	}
}

// The open loop on the bubble's clock: arrivals every 100 ms to streams
// that last 250 ms, at most 2 in flight, so the third arrival finds 2 in
// flight and is not admitted while the fourth, after the first ended, is.
// The clock jumps 30 ms ahead while the loop waits for the second arrival,
// which is woken 30 ms late: the lag samples it and Progress shows it live.
func TestOpenLoopAdmitsAndSamplesLag(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var reads atomic.Int64
		clock := func() time.Time {
			if reads.Add(1) > 4 { // origin, arrival 0's two reads, arrival 1's first: then the jump
				return time.Now().Add(30 * time.Millisecond)
			}
			return time.Now()
		}
		pg := &probe.Progress{}
		l := probe.OpenLoop{Pacer: probe.Bounded(probe.ArrivalPacer(probe.ArrivalConstant, 10, 0), 4, 0), Limit: 2, Clock: clock, Progress: pg}
		var (
			mu   sync.Mutex
			sent []time.Duration
		)
		st := l.Run(context.Background(), clock(), func(i int) func(time.Duration) {
			return func(at time.Duration) {
				mu.Lock()
				sent = append(sent, at)
				mu.Unlock()
				time.Sleep(250 * time.Millisecond)
			}
		})
		if st.NotAdmitted != 1 || pg.NotAdmitted.Load() != 1 || pg.Attempted.Load() != 4 || pg.Admitted.Load() != 3 {
			t.Errorf("not admitted %d (live %d), attempted %d, admitted %d; want 1, 1, 4, 3",
				st.NotAdmitted, pg.NotAdmitted.Load(), pg.Attempted.Load(), pg.Admitted.Load())
		}
		if len(sent) != 3 || sent[0] != 0 || sent[1] != 100*time.Millisecond || sent[2] != 300*time.Millisecond {
			t.Errorf("intended starts %v, want [0s 100ms 300ms]", sent)
		}
		if st.Lag.N != 4 || st.Lag.Max == nil || *st.Lag.Max != 30 || pg.LagMax.Load() != int64(30*time.Millisecond) || pg.LagOver.Load() != 1 {
			t.Errorf("lag n=%d max %v ms, live max %v, %d over the bound; want 4 arrivals, 30 ms, 1",
				st.Lag.N, st.Lag.Max, time.Duration(pg.LagMax.Load()), pg.LagOver.Load())
		}
	})
}

// The closed loop keeps its workers busy until next has no stream left.
func TestClosedLoopSendsUntilNextStops(t *testing.T) {
	var n, inflight, most atomic.Int64
	probe.ClosedLoop(context.Background(), 3, func() bool {
		if n.Add(1) > 10 {
			return false
		}
		c := inflight.Add(1)
		for m := most.Load(); c > m && !most.CompareAndSwap(m, c); m = most.Load() {
		}
		inflight.Add(-1)
		return true
	})
	if got := n.Load(); got != 13 || most.Load() > 3 { // 10 sent, and each of 3 workers told to stop
		t.Errorf("next called %d times, %d in flight at most; want 13, at most 3", got, most.Load())
	}
}
