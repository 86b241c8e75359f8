package probe

import (
	"context"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driplab/drip/stats"
)

// Pacer is an open loop's schedule, in the shape of vegeta's: given the
// time elapsed since the loop began and the arrivals so far, how long
// until the next one is due (≤ 0: due now, late by −wait), or stop.
type Pacer interface {
	Pace(elapsed time.Duration, hits uint64) (wait time.Duration, stop bool)
}

// Offsets is a Pacer from a schedule: arrival i is due at(i) after the
// loop began.
type Offsets func(i uint64) time.Duration

// Pace implements Pacer.
func (at Offsets) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	return at(hits) - elapsed, false
}

// Arrivals is an open loop's schedule by its parameters: rate arrivals
// a second of Kind (ArrivalConstant, ArrivalPoisson or ArrivalGamma of
// shape Burstiness), drawn from Seed, the rate rising from 0 over Ramp.
type Arrivals struct {
	Kind       string
	Rate       float64
	Burstiness float64
	Ramp       time.Duration
	Seed       int64
}

// ArrivalPacer is an open loop of rate arrivals per second, kind
// ArrivalConstant (one every 1/rate) or ArrivalPoisson (exponential gaps
// drawn from seed).
func ArrivalPacer(kind string, rate float64, seed int64) Offsets {
	return Arrivals{Kind: kind, Rate: rate, Seed: seed}.Pacer()
}

// Pacer is the schedule as Offsets. Like vegeta's pacers it may be asked
// about one arrival more than once: the random sum is kept until the next
// is asked for.
func (s Arrivals) Pacer() Offsets {
	a := newArrivals(s)
	var n uint64
	var at time.Duration
	return func(i uint64) time.Duration {
		for ; n <= i; n++ {
			at = a.next()
		}
		return at
	}
}

// Schedule is the Offsets of a trace's timestamps: arrival i is due at[i]
// after the loop began. Bound it to len(at) arrivals (Bounded).
func Schedule(at []time.Duration) Offsets {
	return func(i uint64) time.Duration { return at[i] }
}

// Bounded stops p after n arrivals (n > 0) and at the first arrival due
// at or after d (d > 0): a run's --runs and --duration.
func Bounded(p Offsets, n int, d time.Duration) Pacer {
	return bounded{p, n, d}
}

type bounded struct {
	at Offsets
	n  int
	d  time.Duration
}

func (b bounded) Pace(elapsed time.Duration, hits uint64) (time.Duration, bool) {
	if b.n > 0 && hits >= uint64(b.n) {
		return 0, true
	}
	at := b.at(hits)
	return at - elapsed, b.d > 0 && at >= b.d
}

// OpenLoop sends arrivals on a Pacer's schedule, each in its own goroutine
// so a slow stream never delays the next arrival, and admits an arrival
// only while fewer than Limit of its streams are in flight. It samples
// every arrival's lag behind its schedule, live in Progress and as the
// distribution it returns.
type OpenLoop struct {
	Pacer    Pacer
	Limit    int
	Clock    func() time.Time
	Progress *Progress
}

// Run paces arrivals from origin until the pacer stops or ctx is done,
// and returns once every admitted stream has been sent. arrive is called
// for every arrival in order, before its time, and returns what sends it
// (given its intended start, after origin), or nil for an arrival this
// agent does not send, skipped without waiting.
func (l OpenLoop) Run(ctx context.Context, origin time.Time, arrive func(i int) func(at time.Duration)) stats.RunStats {
	pg := l.Progress
	var (
		lag         stats.Sampler
		notAdmitted int
		inflight    atomic.Int64
		wg          sync.WaitGroup
	)
	timer := time.NewTimer(time.Hour)
	defer timer.Stop()
	for i := 0; ; i++ {
		now := l.Clock()
		wait, stop := l.Pacer.Pace(now.Sub(origin), uint64(i))
		if stop {
			break
		}
		send := arrive(i)
		if send == nil {
			continue
		}
		if wait > 0 {
			timer.Reset(wait)
			select {
			case <-timer.C:
			case <-ctx.Done():
			}
		}
		if ctx.Err() != nil {
			break
		}
		due := now.Add(wait)
		late := max(l.Clock().Sub(due), 0)
		lag.Add(ms(late))
		pg.Attempted.Add(1) // first, so a live "k of n" never has k > n
		pg.addLag(late)
		if inflight.Load() >= int64(l.Limit) {
			notAdmitted++
			pg.NotAdmitted.Add(1)
			continue
		}
		inflight.Add(1)
		pg.Admitted.Add(1)
		pg.InFlight.Add(1)
		wg.Go(func() {
			send(due.Sub(origin))
			inflight.Add(-1)
			pg.InFlight.Add(-1)
		})
	}
	wg.Wait()
	return stats.NewRunStats(notAdmitted, &lag)
}

// ClosedLoop keeps workers streams in flight: each worker sends one after
// another until next says there is none left or ctx is done, so a
// stream's slot is refilled as soon as it has ended. next sends one
// stream and says whether it did.
func ClosedLoop(ctx context.Context, workers int, next func() bool) {
	var wg sync.WaitGroup
	for range workers {
		wg.Go(func() {
			for ctx.Err() == nil && next() {
			}
		})
	}
	wg.Wait()
}
