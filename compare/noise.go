package compare

import (
	"cmp"
	"fmt"
	"hash/fnv"
	"math"
	"math/rand/v2"
	"slices"

	"github.com/driplab/drip/stats"
)

// DefaultResamples is the number of bootstrap resamples.
const DefaultResamples = 2000

// MinNoiseStreams is the fewest streams with observations a run needs for
// an interval. Two streams resample into only three distinct pairs, too few
// to say anything about run-to-run noise.
const MinNoiseStreams = 3

// noIntervalWords say why a difference has no interval.
var noIntervalWords = fmt.Sprintf("no interval: fewer than %d streams with samples in a run", MinNoiseStreams)

const (
	confidence = 0.95
	// noiseSeed seeds every interval, so the same files always give the
	// same intervals.
	noiseSeed   = 0
	noiseMethod = "percentile bootstrap of the difference (run − baseline), resampling whole streams with replacement"
)

// Noise states how the intervals of the differences were computed.
type Noise struct {
	Method     string  `json:"method"`
	Resamples  int     `json:"resamples"`
	Confidence float64 `json:"confidence"`
	Seed       uint64  `json:"seed"`
}

// rng is the generator of one row's interval, seeded from the comparison's
// seed and the row, so every interval is reproducible and does not depend
// on which other rows were computed.
func (n Noise) rng(scope, key string, run int) *rand.Rand {
	h := fnv.New64a()
	h.Write([]byte(scope))
	h.Write([]byte{0})
	h.Write([]byte(key))
	return rand.New(rand.NewPCG(n.Seed, h.Sum64()+uint64(run)))
}

// bootstrapDiff is the confidence interval of percentile(b) − percentile(a)
// from observations grouped by stream. A resample draws whole streams with
// replacement and pools their observations. The gaps of one stream are not
// independent of each other (one slow stream is slow throughout), and
// resampling them one by one would make the interval too narrow. Nil when
// either run has fewer than MinNoiseStreams streams with observations.
func bootstrapDiff(a, b [][]float64, pct float64, resamples int, rng *rand.Rand) *Interval {
	if len(a) < MinNoiseStreams || len(b) < MinNoiseStreams {
		return nil
	}
	pa, pb := newPool(a), newPool(b)
	diffs := make([]float64, resamples)
	for i := range diffs {
		diffs[i] = pb.resample(pct, rng) - pa.resample(pct, rng)
	}
	slices.Sort(diffs)
	tail := (1 - confidence) / 2 * 100
	return &Interval{Lo: stats.Percentile(diffs, tail), Hi: stats.Percentile(diffs, 100-tail)}
}

// pool holds one run's observations sorted once, each tagged with its
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

// resample draws as many streams as the run has, with replacement, and
// returns the percentile (probe.Percentile's definition) of their pooled
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

// noiseLine is one difference the noise block lists, a metric's p50 or
// p95 in one run against A, and what its interval says.
type noiseLine struct {
	metric, run, verdict string
	none                 bool // no interval: too few streams with samples
}

// withoutIntervals splits off the runs none of whose lines has an
// interval (a run of one or two streams), so that the text report says
// so once for each instead of on every line.
func withoutIntervals(lines []noiseLine) (kept []noiseLine, runs []string) {
	all := map[string]bool{}
	for _, n := range lines {
		if _, seen := all[n.run]; !seen {
			all[n.run] = true
			runs = append(runs, n.run)
		}
		all[n.run] = all[n.run] && n.none
	}
	runs = slices.DeleteFunc(runs, func(r string) bool { return !all[r] })
	for _, n := range lines {
		if !all[n.run] {
			kept = append(kept, n)
		}
	}
	return kept, runs
}

// noiseLines are the p50 and p95 differences of every section with
// samples, run by run, for the noise block of the text and Markdown
// reports.
func noiseLines(c *Comparison) []noiseLine {
	var out []noiseLine
	for _, sec := range c.Sections {
		if sec.N == nil {
			continue
		}
		for _, r := range sec.Rows {
			if r.Label != "p50" && r.Label != "p95" {
				continue
			}
			for i := 1; i < len(r.Values); i++ {
				d := r.Deltas[i]
				out = append(out, noiseLine{sec.Key + " " + r.Label, Letter(i), NoiseVerdict(r, d), d == nil || d.CI == nil})
			}
		}
	}
	return out
}
