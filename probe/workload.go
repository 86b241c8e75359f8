package probe

import (
	"math/rand/v2"
	"sync"
	"time"
)

// Independent random streams drawn from one seed, so that changing the
// prompt set does not move the arrivals and vice versa.
const (
	orderStream   = 1
	arrivalStream = 2
	warmupStream  = 3
)

func seeded(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

// picker hands out prompts in rounds: each round is every prompt once, in
// an order shuffled afresh from the seed. It is safe for concurrent use.
// A sharded picker draws the whole sequence and hands out only its own
// slice (index mod shards = shard), so N agents with one seed send between
// them exactly what one agent would.
type picker struct {
	mu            sync.Mutex
	prompts       []Prompt
	rng           *rand.Rand
	round         []int // the current round's order
	n             int   // prompts drawn
	limit         int   // 0: no limit
	shard, shards int   // shards 0 or 1: every index is this picker's
}

func newPicker(prompts []Prompt, seed int64, stream uint64, limit int) *picker {
	return &picker{prompts: prompts, rng: seeded(seed, stream), limit: limit}
}

// sharded makes the picker hand out only indices of shard i of n.
func (p *picker) sharded(i, n int) *picker {
	p.shard, p.shards = i, n
	return p
}

// next returns the next prompt of this picker's slice with its index in
// the whole sequence, or false when the limit is reached.
func (p *picker) next() (Prompt, int, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for {
		if p.limit > 0 && p.n >= p.limit {
			return Prompt{}, 0, false
		}
		i := p.n % len(p.prompts)
		if i == 0 {
			p.round = p.rng.Perm(len(p.prompts))
		}
		k := p.n
		p.n++
		if p.shards <= 1 || k%p.shards == p.shard {
			return p.prompts[p.round[i]], k, true
		}
	}
}

// arrivals is an open loop's schedule: offsets from the loop's start.
type arrivals struct {
	poisson bool
	rate    float64
	rng     *rand.Rand
	i       int
	at      float64 // seconds, the Poisson process's running sum
}

func newArrivals(kind string, rate float64, seed int64) *arrivals {
	return &arrivals{poisson: kind == ArrivalPoisson, rate: rate, rng: seeded(seed, arrivalStream)}
}

// next returns the next arrival's offset. A constant schedule computes i/rate
// rather than summing 1/rate, so it does not drift; a Poisson one sums
// exponential gaps, so the count in any window is Poisson-distributed.
func (a *arrivals) next() time.Duration {
	if a.poisson {
		a.at += a.rng.ExpFloat64() / a.rate
		return time.Duration(a.at * float64(time.Second))
	}
	at := float64(a.i) / a.rate
	a.i++
	return time.Duration(at * float64(time.Second))
}
