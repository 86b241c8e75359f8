package probe

import (
	crand "crypto/rand"
	"encoding/binary"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
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
	datasetStream = 4
)

func seeded(seed int64, stream uint64) *rand.Rand {
	return rand.New(rand.NewPCG(uint64(seed), stream))
}

// picker hands out prompts in rounds. Each round is every prompt once, in
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
	limit         int   // 0 means no limit
	shard, shards int   // with shards 0 or 1, every index is this picker's
	inOrder       bool  // a trace's picker hands out every round in the file's order
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
			if p.inOrder {
				for j := range p.round {
					p.round[j] = j
				}
			}
		}
		k := p.n
		p.n++
		if p.shards <= 1 || k%p.shards == p.shard {
			return p.prompts[p.round[i]], k, true
		}
	}
}

// arrivals is an open loop's schedule of offsets from the loop's start. It
// draws arrivals in unit time, where they come one a unit on average, and
// warps that to the run's time by the rate (and the ramp), so every kind
// of arrival ramps the same way.
type arrivals struct {
	kind  string
	shape float64 // gamma's shape, --burstiness
	rate  float64
	ramp  float64 // seconds for the rate to rise from 0 to rate
	rng   *rand.Rand
	i     int
	u     float64 // unit time, the random processes' running sum
}

func newArrivals(a Arrivals) *arrivals {
	return &arrivals{kind: a.Kind, shape: a.Burstiness, rate: a.Rate, ramp: a.Ramp.Seconds(), rng: seeded(a.Seed, arrivalStream)}
}

// next returns the next arrival's offset. A constant schedule computes i
// rather than summing 1, so it does not drift. A Poisson one sums
// exponential gaps, so the count in any window is Poisson-distributed. A
// gamma one sums gamma gaps of shape --burstiness and mean 1, as vLLM
// does. A shape under 1 is burstier than Poisson, and over 1 more even.
func (a *arrivals) next() time.Duration {
	switch a.kind {
	case ArrivalPoisson:
		a.u += a.rng.ExpFloat64()
	case ArrivalGamma:
		a.u += gamma(a.rng, a.shape) / a.shape
	default:
		a.u = float64(a.i)
		a.i++
	}
	return time.Duration(a.warp(a.u) * float64(time.Second))
}

// warp maps unit time to seconds. Without a ramp it is u/rate. With one
// the rate rises linearly from 0 to rate over ramp seconds, so the
// arrivals by t are rate·t²/(2·ramp) until then and rise by rate a second
// after (k6's ramping-arrival-rate stage, AIPerf's rate ramp).
func (a *arrivals) warp(u float64) float64 {
	if a.ramp <= 0 {
		return u / a.rate
	}
	if half := a.rate * a.ramp / 2; u > half {
		return a.ramp + (u-half)/a.rate
	}
	return math.Sqrt(2 * a.ramp * u / a.rate)
}

// gamma draws from a gamma distribution of shape k and scale 1 by
// Marsaglia and Tsang's method. For k < 1 it boosts k by one and scales the
// draw by U^(1/k).
func gamma(r *rand.Rand, k float64) float64 {
	if k < 1 {
		return gamma(r, k+1) * math.Pow(r.Float64(), 1/k)
	}
	d := k - 1.0/3
	c := 1 / math.Sqrt(9*d)
	for {
		x := r.NormFloat64()
		v := 1 + c*x
		if v <= 0 {
			continue
		}
		v = v * v * v
		if u := r.Float64(); math.Log(u) < x*x/2+d-d*v+d*math.Log(v) {
			return d * v
		}
	}
}

// DefaultRuns is a run's measured streams when the user names neither a
// count nor a duration.
const DefaultRuns = 3

// Load is a run's load as drip run's flags give it. It is a closed loop of
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
	Burstiness   float64       // gamma arrivals' shape (ArrivalGamma)
	Ramp         time.Duration // the open loop's rate rises from 0 over this long
	Trace        *Trace        // a trace's times and prompts make the open loop
	// RunsGiven and SeedGiven say the user set Runs and Seed. Without
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
	switch {
	case l.Trace != nil:
		runs := 0 // the whole trace
		if l.RunsGiven {
			runs = l.Runs
		}
		l.Trace.Apply(p, runs)
		p.MaxInflight = l.MaxInflight
	case l.Rate > 0:
		p.Rate, p.Arrival, p.MaxInflight = l.Rate, l.Arrival, l.MaxInflight
		p.Burstiness, p.Ramp = l.Burstiness, l.Ramp
	default:
		p.Concurrency = l.Concurrency
	}
	return p.Validate()
}

// Plan bounds. A plan beyond them is a mistake, not a workload.
const (
	MaxStreams  = 10_000_000 // Runs, Warmup
	MaxInFlight = 100_000    // Concurrency, MaxInflight
	MinRate     = 0.001      // arrivals per second, so one every 1000 s
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
	case p.Rate > 0 && !slices.Contains([]string{ArrivalConstant, ArrivalPoisson, ArrivalGamma, ArrivalTrace}, p.Arrival):
		return fmt.Errorf("--arrival must be constant, poisson or gamma, not %q", p.Arrival)
	case p.Arrival == ArrivalGamma && !(p.Burstiness >= 0.01 && p.Burstiness <= 100):
		return fmt.Errorf("--burstiness %v: want a gamma shape from 0.01 (bursty) to 100 (even); 1 is Poisson", p.Burstiness)
	case p.Arrival == ArrivalTrace && len(p.Schedule) == 0:
		return errors.New("a trace's arrivals need its timestamps")
	case p.Ramp < 0 || p.Ramp > 0 && p.Rate == 0:
		return fmt.Errorf("--ramp %v: a ramp raises an open loop's rate from 0: give --rate, and a ramp that is not negative", p.Ramp)
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

// NewSeed picks a seed for a plan the user gave none. The seed is short
// enough to retype, as it is printed for repeating a run.
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
	case p.Arrival == ArrivalTrace:
		parts = append(parts, fmt.Sprintf("open loop, a trace's timestamps (%s over %s, mean %s/s), at most %d in flight",
			stats.Count(len(p.Schedule), "arrival"), textfmt.MS(float64(p.Schedule[len(p.Schedule)-1])/float64(time.Millisecond)), textfmt.FormatFloat(p.Rate), p.InflightLimit()))
	case p.Rate > 0:
		parts = append(parts, fmt.Sprintf("open loop, %s arrivals at %s/s%s, at most %d in flight", p.ArrivalWords(), textfmt.FormatFloat(p.Rate), p.rampWords(), p.InflightLimit()))
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
	if len(p.Prompts) > 1 || p.Arrival == ArrivalPoisson || p.Arrival == ArrivalGamma || p.Shards > 0 {
		parts = append(parts, fmt.Sprintf("seed %d", p.Seed))
	}
	if p.Shards > 0 {
		parts = append(parts, fmt.Sprintf("shard %d/%d (streams %d, %d, %d, … of the whole)", p.Shard, p.Shards, p.Shard, p.Shard+p.Shards, p.Shard+2*p.Shards))
	}
	return strings.Join(parts, " · ")
}

// DescribeLength says how long the plan runs, by its runs, its duration or
// both. per (e.g. " per level") follows each.
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
// among it. A closed loop has at least one stream in flight. An open loop
// says its rate.
func (p *Plan) Stamp(version string) {
	c := p.Concurrency
	if p.Rate == 0 {
		c = max(1, c)
	}
	p.Workload = &record.RecordWorkload{MaxTokens: p.Target.Request.MaxTokens, Concurrency: c, Rate: p.Rate, Version: version, Shard: p.ShardLabel(), Lengths: p.Lengths}
	if p.Rate > 0 && (p.Arrival == ArrivalGamma || p.Arrival == ArrivalTrace || p.Ramp > 0) {
		p.Workload.Arrival = p.ArrivalWords() + p.rampWords()
	}
}

// ArrivalWords names the open loop's arrivals as constant, poisson, gamma
// with its burstiness, or trace.
func (p *Plan) ArrivalWords() string {
	if p.Arrival == ArrivalGamma {
		return fmt.Sprintf("gamma (burstiness %s)", textfmt.FormatFloat(p.Burstiness))
	}
	return p.Arrival
}

// rampWords says the ramp, if any, after the rate.
func (p *Plan) rampWords() string {
	if p.Ramp <= 0 {
		return ""
	}
	return ", rising from 0 over " + p.Ramp.String()
}
