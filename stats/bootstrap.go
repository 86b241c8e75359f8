package stats

import (
	"cmp"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"
)

// DefaultResamples is the number of bootstrap resamples of an interval.
const DefaultResamples = 2000

// MinNoiseStreams is the fewest streams with observations a side needs
// for an interval. Two streams resample into only three distinct pairs,
// too few to say anything about run-to-run noise.
const MinNoiseStreams = 3

// IntervalConfidence is the confidence of every interval BootstrapDiff
// draws.
const IntervalConfidence = 0.95

// Interval is a confidence interval of a difference.
type Interval struct {
	Lo float64 `json:"lo"`
	Hi float64 `json:"hi"`
}

// IntervalRNG is the random source of one interval. It is seeded from seed
// and the interval's scope, key and run, so every interval is reproducible
// and does not depend on which other intervals were computed.
func IntervalRNG(seed uint64, scope, key string, run int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(seed, h.Sum64()+uint64(run)))
}

// DiffInterval is the bootstrap interval of percentile pct of b's
// observations minus a's, each grouped by stream. It is drawn as a
// comparison draws its intervals (DefaultResamples, whole streams) from a
// source seeded from key alone, so the same observations always give the
// same interval. It lets other judges of a rise (a sweep's knee) use the
// comparison's own notion of noise. It is nil when either side has fewer
// than MinNoiseStreams streams with observations.
func DiffInterval(a, b [][]float64, pct float64, key string) *Interval {
	return BootstrapDiff(a, b, pct, DefaultResamples, IntervalRNG(0, "", key, 0))
}

// BootstrapDiff is the confidence interval of percentile(b) − percentile(a)
// from observations grouped by stream. A resample draws whole streams with
// replacement and pools their observations. The gaps of one stream are not
// independent of each other (one slow stream is slow throughout), and
// resampling them one by one would make the interval too narrow. It is nil
// when either side has fewer than MinNoiseStreams streams with
// observations.
func BootstrapDiff(a, b [][]float64, pct float64, resamples int, rng *rand.Rand) *Interval {
	if len(a) < MinNoiseStreams || len(b) < MinNoiseStreams {
		return nil
	}
	pa, pb := newPool(a), newPool(b)
	diffs := make([]float64, resamples)
	for i := range diffs {
		diffs[i] = pb.resample(pct, rng) - pa.resample(pct, rng)
	}
	slices.Sort(diffs)
	tail := (1 - IntervalConfidence) / 2 * 100
	return &Interval{Lo: Percentile(diffs, tail), Hi: Percentile(diffs, 100-tail)}
}

// pool holds one side's observations sorted once, each tagged with its
// stream, so a resample is a vector of stream weights and its percentile
// one walk over the sorted values, with no copying or sorting per
// resample.
type pool struct {
	vals   []float64 // every observation, ascending
	owner  []int32   // the stream of each
	sizes  []int     // observations per stream
	weight []int     // times each stream was drawn in the current resample
}

func newPool(streams [][]float64) *pool {
	type obs struct {
		v float64
		s int32
	}
	var all []obs
	p := &pool{sizes: make([]int, len(streams)), weight: make([]int, len(streams))}
	for i, st := range streams {
		p.sizes[i] = len(st)
		for _, v := range st {
			all = append(all, obs{v, int32(i)})
		}
	}
	slices.SortFunc(all, func(x, y obs) int { return cmp.Compare(x.v, y.v) })
	p.vals, p.owner = make([]float64, len(all)), make([]int32, len(all))
	for i, o := range all {
		p.vals[i], p.owner[i] = o.v, o.s
	}
	return p
}

// resample draws as many streams as the side has, with replacement, and
// returns the percentile (Percentile's definition) of their pooled
// observations.
func (p *pool) resample(pct float64, rng *rand.Rand) float64 {
	clear(p.weight)
	n := 0
	for range p.sizes {
		k := rng.IntN(len(p.sizes))
		p.weight[k]++
		n += p.sizes[k]
	}
	return p.percentile(pct, n)
}

// percentile is the percentile of the observations of the drawn streams,
// each counted as often as its stream was drawn. n is their total count.
func (p *pool) percentile(pct float64, n int) float64 {
	pos := pct / 100 * float64(n-1)
	lo := int(math.Floor(pos))
	hi := min(lo+1, n-1)
	vLo, vHi := p.rank(lo, n), p.rank(hi, n)
	return vLo + (vHi-vLo)*(pos-float64(lo))
}

// rank is the value at rank r (0-based) of the resample of n observations.
// It takes a walk over the sorted values counting each as many times as its stream
// was drawn, from whichever end is nearer, so a p95 walks a twentieth.
func (p *pool) rank(r, n int) float64 {
	cum := 0
	if r < n/2 {
		for i, v := range p.vals {
			if cum += p.weight[p.owner[i]]; cum > r {
				return v
			}
		}
	} else {
		for i := len(p.vals) - 1; i >= 0; i-- {
			if cum += p.weight[p.owner[i]]; cum >= n-r {
				return p.vals[i]
			}
		}
	}
	return math.NaN() // r out of range, not reached for 0 <= r < n
}
