package probe

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math/rand/v2"
	"strings"
	"sync"
	"time"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
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

// DefaultRuns is a run's measured streams when the user names neither a
// count nor a duration.
const DefaultRuns = 3

// Load is a run's load as drip run's flags give it: a closed loop of
// Concurrency streams, or an open one at Rate (with Arrival and
// MaxInflight), bounded by Runs and Duration.
type Load struct {
	Runs, Warmup int
	Concurrency  int
	Rate         float64
	Arrival      string
	MaxInflight  int
	Duration     time.Duration
	Seed         int64
	// RunsGiven and SeedGiven say the user set Runs and Seed: without
	// them Runs is DefaultRuns (no limit with a Duration) and the seed new.
	RunsGiven, SeedGiven bool
}

// Apply fills the plan's load, its defaults included, and checks the plan.
func (l Load) Apply(p *Plan) error {
	p.Runs, p.Warmup, p.Duration, p.Seed = l.Runs, l.Warmup, l.Duration, l.Seed
	if !l.RunsGiven {
		p.Runs = DefaultRuns
		if l.Duration > 0 {
			p.Runs = 0 // the duration decides
		}
	}
	if !l.SeedGiven {
		p.Seed = NewSeed()
	}
	if l.Rate > 0 {
		p.Rate, p.Arrival, p.MaxInflight = l.Rate, l.Arrival, l.MaxInflight
	} else {
		p.Concurrency = l.Concurrency
	}
	return p.Validate()
}

// Plan bounds: a plan beyond them is a mistake, not a workload.
const (
	MaxStreams  = 10_000_000 // Runs, Warmup
	MaxInFlight = 100_000    // Concurrency, MaxInflight
	MinRate     = 0.001      // arrivals per second: one every 1000 s
	MaxRate     = 1_000_000
)

// Validate checks a plan before anything is sent. Its errors name the
// fields by the drip run flags that set them, the words the user knows.
func (p *Plan) Validate() error {
	for _, c := range []struct {
		flag      string
		v, lo, hi int
	}{{"--runs", p.Runs, 0, MaxStreams}, {"--warmup", p.Warmup, 0, MaxStreams},
		{"--concurrency", p.Concurrency, 0, MaxInFlight}, {"--max-inflight", p.MaxInflight, 0, MaxInFlight}} {
		if err := inRange(c.flag, c.v, c.lo, c.hi); err != nil {
			return err
		}
	}
	switch {
	case p.Rate != 0 && !(p.Rate >= MinRate && p.Rate <= MaxRate): // NaN fails every comparison
		return fmt.Errorf("--rate %v: want a number of streams per second from %v to %v", p.Rate, MinRate, MaxRate)
	case p.Duration < 0:
		return fmt.Errorf("--duration %v: must not be negative", p.Duration)
	case p.Rate > 0 && p.Arrival != ArrivalConstant && p.Arrival != ArrivalPoisson:
		return fmt.Errorf("--arrival must be constant or poisson, not %q", p.Arrival)
	case p.Runs == 0 && p.Duration == 0:
		return errors.New("--runs 0 needs a --duration")
	case p.Target.Body != nil && len(p.Prompts) > 1:
		return errors.New("a fixed body (-d or --body) sends one request: it cannot be combined with several prompts (--prompts)")
	}
	return CheckPromptIDs(p.Prompts)
}

// inRange checks a count against [lo, hi], naming its flag.
func inRange(flag string, v, lo, hi int) error {
	switch {
	case v < lo:
		return fmt.Errorf("%s %d: must be at least %d", flag, v, lo)
	case v > hi:
		return fmt.Errorf("%s %d: must be at most %d", flag, v, hi)
	}
	return nil
}

// NewSeed picks a seed for a plan the user gave none: short enough to
// retype, as it is printed for repeating a run.
func NewSeed() int64 {
	var b [8]byte
	crand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:])%999_999) + 1
}

// Describe is the plan's shape in one line, the seed included where it
// decides something, so a run can be repeated.
func (p *Plan) Describe() string {
	var parts []string
	switch {
	case p.Rate > 0:
		parts = append(parts, fmt.Sprintf("open loop, %s arrivals at %s/s, at most %d in flight", p.Arrival, textfmt.FormatFloat(p.Rate), p.InflightLimit()))
	case p.Concurrency > 1:
		parts = append(parts, fmt.Sprintf("closed loop, %d in flight", p.Concurrency))
	}
	parts = append(parts, p.DescribeLength(""))
	if p.Warmup > 0 {
		parts = append(parts, fmt.Sprintf("after %d warmup per prompt", p.Warmup))
	}
	if n := len(p.Prompts); n > 1 {
		parts = append(parts, fmt.Sprintf("%d prompts", n))
	}
	if len(p.Prompts) > 1 || p.Arrival == ArrivalPoisson || p.Shards > 0 {
		parts = append(parts, fmt.Sprintf("seed %d", p.Seed))
	}
	if p.Shards > 0 {
		parts = append(parts, fmt.Sprintf("shard %d/%d (streams %d, %d, %d, … of the whole)", p.Shard, p.Shards, p.Shard, p.Shard+p.Shards, p.Shard+2*p.Shards))
	}
	return strings.Join(parts, " · ")
}

// DescribeLength says how long the plan runs: its runs, its duration or
// both; per (e.g. " per level") follows each.
func (p *Plan) DescribeLength(per string) string {
	switch {
	case p.Runs > 0 && p.Duration > 0:
		return fmt.Sprintf("%s or %s%s, whichever ends first", stats.Count(p.Runs, "run"), p.Duration, per)
	case p.Duration > 0 && per == "":
		return "for " + p.Duration.String()
	case p.Duration > 0:
		return p.Duration.String() + per
	}
	return stats.Count(p.Runs, "run") + per
}

// Stamp sets the workload every record of the plan carries, drip's version
// among it. A closed loop has at least one stream in flight; an open loop
// says its rate.
func (p *Plan) Stamp(version string) {
	c := p.Concurrency
	if p.Rate == 0 {
		c = max(1, c)
	}
	p.Workload = &record.RecordWorkload{MaxTokens: p.Target.Request.MaxTokens, Concurrency: c, Rate: p.Rate, Version: version, Shard: p.ShardLabel()}
}
