package stats

import (
	"errors"
	"fmt"
	"math"
	"slices"
)

// Histogram is a mergeable log-bucketed histogram of non-negative values
// (milliseconds, tokens, rates). Bucket i holds values in
// [HistMin·γ^i, HistMin·γ^(i+1)) with γ = 1.01, and reports each as the
// harmonic midpoint 2·lo·hi/(lo+hi), so a value read back is within
// (γ−1)/(γ+1) < 0.5% of the value recorded. Values below HistMin count as
// 0, so their absolute error is under HistMin. Two histograms merge by adding
// bucket counts, so histograms from several runs or hosts combine exactly.
// Only the span of buckets between the lowest and highest value seen is
// kept (a few hundred for one latency), so every sampler can keep one.
type Histogram struct {
	zero   uint64   // values below HistMin
	lo     int      // the bucket of counts[0]
	counts []uint64 // buckets lo … lo+len-1
	n      uint64
}

// Histogram resolution.
const (
	HistMin           = 0.001 // smallest value kept apart from 0 (1 µs when in ms)
	HistGamma         = 1.01
	HistRelativeError = (HistGamma - 1) / (HistGamma + 1) // ≈ 0.4975%
)

var logGamma = math.Log(HistGamma)

func histBucket(v float64) int { return int(math.Log(v/HistMin) / logGamma) }

func histValue(i int) float64 {
	lo := HistMin * math.Exp(float64(i)*logGamma)
	hi := lo * HistGamma
	return 2 * lo * hi / (lo + hi)
}

// Add records one value. Negative and NaN values count as 0.
func (h *Histogram) Add(v float64) {
	h.n++
	if !(v >= HistMin) {
		h.zero++
		return
	}
	h.addBucket(histBucket(v), 1)
}

// addBucket adds c values to bucket i, widening the kept span to hold it.
func (h *Histogram) addBucket(i int, c uint64) {
	switch {
	case len(h.counts) == 0:
		h.lo, h.counts = i, append(h.counts[:0], 0)
	case i < h.lo:
		h.counts = append(make([]uint64, h.lo-i, h.lo-i+len(h.counts)), h.counts...)
		h.lo = i
	case i >= h.lo+len(h.counts):
		h.counts = append(h.counts, make([]uint64, i+1-h.lo-len(h.counts))...)
	}
	h.counts[i-h.lo] += c
}

// Merge adds every value of o to h.
func (h *Histogram) Merge(o *Histogram) {
	h.n += o.n
	h.zero += o.zero
	for i, c := range o.counts {
		if c > 0 {
			h.addBucket(o.lo+i, c)
		}
	}
}

// N is the number of values recorded.
func (h *Histogram) N() int { return int(h.n) }

// rank returns the value of the k-th smallest recorded value (0-based), to
// the histogram's resolution.
func (h *Histogram) rank(k uint64) float64 {
	if k < h.zero {
		return 0
	}
	seen := h.zero
	for i, c := range h.counts {
		seen += c
		if k < seen {
			return histValue(h.lo + i)
		}
	}
	return histValue(h.lo + len(h.counts) - 1)
}

// Percentile interpolates linearly between closest ranks like Percentile
// does over raw samples. It is NaN when empty. Each rank is read back
// within the histogram's relative error, and so is a convex combination
// of two.
func (h *Histogram) Percentile(p float64) float64 {
	if h.n == 0 {
		return math.NaN()
	}
	pos := p / 100 * float64(h.n-1)
	lo := uint64(math.Floor(pos))
	if lo >= h.n-1 {
		return h.rank(h.n - 1)
	}
	a, b := h.rank(lo), h.rank(lo+1)
	return a + (b-a)*(pos-float64(lo))
}

// DefaultExactSamples is how many values a Sampler keeps exactly before it
// moves to a Histogram. Percentiles are exact up to this many samples per
// metric and within HistRelativeError beyond.
const DefaultExactSamples = 50_000

// Sampler collects one metric's values with memory that does not grow with
// the run. It keeps the raw values up to DefaultExactSamples, and a
// Histogram of every value throughout. Summaries carry the histogram so
// runs can be merged (HistogramJSON). Count, min, max and mean stay exact
// throughout. The zero value is ready.
type Sampler struct {
	limit         int
	exact         []float64
	overflow      bool // past the limit, exact is dropped and hist answers
	hist          Histogram
	n             int
	sum, min, max float64
}

// Add records one value.
func (s *Sampler) Add(v float64) {
	if s.limit <= 0 {
		s.limit = DefaultExactSamples
	}
	if s.n == 0 || v < s.min {
		s.min = v
	}
	if s.n == 0 || v > s.max {
		s.max = v
	}
	s.n++
	s.sum += v
	s.hist.Add(v)
	if s.overflow {
		return
	}
	s.exact = append(s.exact, v)
	if len(s.exact) > s.limit {
		s.exact, s.overflow = nil, true
	}
}

// AddPtr records a defined value and skips an undefined one.
func (s *Sampler) AddPtr(v *float64) {
	if v != nil {
		s.Add(*v)
	}
}

// Merge adds every value o recorded (o's histogram when it is past its
// cap).
func (s *Sampler) Merge(o *Sampler) {
	if !o.overflow {
		for _, v := range o.exact {
			s.Add(v)
		}
		return
	}
	if s.n == 0 || o.min < s.min {
		s.min = o.min
	}
	if s.n == 0 || o.max > s.max {
		s.max = o.max
	}
	s.hist.Merge(&o.hist)
	s.n += o.n
	s.sum += o.sum
	s.exact, s.overflow = nil, true
}

// N is the number of values recorded.
func (s *Sampler) N() int { return s.n }

// Dist summarises the values. It is exact while they fit under the cap
// and read from the histogram (marked) beyond it. Min, max and mean are
// exact either way.
func (s *Sampler) Dist() Dist {
	if !s.overflow {
		return NewDist(slices.Clone(s.exact))
	}
	clamp := func(v float64) *float64 { return new(min(max(v, s.min), s.max)) }
	return Dist{
		N: s.n, Min: new(s.min), Max: new(s.max), Mean: new(s.sum / float64(s.n)),
		P50: clamp(s.hist.Percentile(50)), P90: clamp(s.hist.Percentile(90)),
		P95: clamp(s.hist.Percentile(95)), P99: clamp(s.hist.Percentile(99)),
		Histogram: true,
	}
}

// HistogramJSON is a Sampler's histogram as a summary carries it. It holds
// the bucket counts (see Histogram for the buckets) with the exact count,
// sum, min and max. Merged summaries so keep exact counts, means and
// extremes, and percentiles within HistRelativeError.
type HistogramJSON struct {
	N      int      `json:"n"`
	Sum    float64  `json:"sum"`
	Min    *float64 `json:"min"`
	Max    *float64 `json:"max"`
	Zero   uint64   `json:"zero"`   // values below the smallest bucket
	Offset int      `json:"offset"` // the bucket index of counts[0]
	Counts []uint64 `json:"counts"`
}

// Export is the sampler's histogram for a summary.
func (s *Sampler) Export() HistogramJSON {
	h := HistogramJSON{N: s.n, Sum: s.sum, Zero: s.hist.zero, Offset: s.hist.lo, Counts: slices.Clone(s.hist.counts)}
	if h.Counts == nil {
		h.Counts = []uint64{}
	}
	if s.n > 0 {
		h.Min, h.Max = new(s.min), new(s.max)
	}
	return h
}

// HistMaxBucket is the highest bucket a histogram read from a file may
// hold. Its values (about 10^18, far past any time, count or rate drip
// measures) and their sums stay finite, so no percentile or mean of a
// merged summary is infinite. A value of HistMin or more falls in bucket 0
// or above.
var HistMaxBucket = histBucket(1e18)

// MergeJSON adds an exported histogram to the sampler, which from then on
// answers from its histogram (the raw values are not in the JSON). A
// histogram comes from a file, so counts that wrap when added up, a
// bucket outside 0 … HistMaxBucket, a sum that would overflow with the
// sampler's and a count past 2^63−1 in all are refused.
func (s *Sampler) MergeJSON(h HistogramJSON) error {
	total, err := histTotal(h)
	switch {
	case err != nil:
		return err
	case total != uint64(h.N) || h.N < 0:
		return fmt.Errorf("histogram counts add up to %d, its n is %d", total, h.N)
	case h.N > 0 && (h.Min == nil || h.Max == nil):
		return fmt.Errorf("histogram of %d values without min and max", h.N)
	case h.N == 0:
		return nil
	case h.Offset < 0 || h.Offset > HistMaxBucket || len(h.Counts) > HistMaxBucket+1-h.Offset:
		return fmt.Errorf("histogram offset %d with %d buckets: want buckets 0 to %d", h.Offset, len(h.Counts), HistMaxBucket)
	case h.N > math.MaxInt-s.n:
		return fmt.Errorf("histogram n %d: added to the %d before it, past 2^63−1", h.N, s.n)
	case math.IsInf(s.sum+h.Sum, 0):
		return fmt.Errorf("histogram sum %g is past what a number holds, added to the %g before it", h.Sum, s.sum)
	}
	if s.n == 0 || *h.Min < s.min {
		s.min = *h.Min
	}
	if s.n == 0 || *h.Max > s.max {
		s.max = *h.Max
	}
	s.n += h.N
	s.sum += h.Sum
	s.exact, s.overflow = nil, true
	s.hist.Merge(&Histogram{zero: h.Zero, lo: h.Offset, counts: h.Counts, n: uint64(h.N)})
	return nil
}

// histTotal adds up h's counts and refuses a total that wraps. Counts of
// 2^64−1 and 2 would add up to 1 and pass for one value.
func histTotal(h HistogramJSON) (uint64, error) {
	total := h.Zero
	for _, c := range h.Counts {
		if total+c < total {
			return 0, errors.New("its counts overflow when added up (past 2^64−1)")
		}
		total += c
	}
	return total, nil
}

// BucketDist reads percentiles from bucket counts as each bucket's upper
// edge (its lower one for the open last bucket), in ms. No sample in the
// bucket exceeds that figure. Mean stays nil (undefined, not 0), because
// bucket counts carry no sum and a mean of upper edges would be no mean.
func BucketDist(counts []uint64, buckets []float64) Dist {
	var n uint64
	for _, c := range counts {
		n += c
	}
	d := Dist{N: int(n)}
	if n == 0 {
		return d
	}
	edge := func(i int) float64 {
		v := buckets[i+1]
		if math.IsInf(v, 1) {
			v = buckets[i]
		}
		return max(v, 0) * 1000
	}
	at := func(p float64) *float64 {
		rank := uint64(math.Ceil(p / 100 * float64(n)))
		var cum uint64
		for i, c := range counts {
			if cum += c; cum >= max(rank, 1) {
				return new(edge(i))
			}
		}
		return new(edge(len(counts) - 1))
	}
	d.P50, d.P90, d.P95, d.P99, d.Max = at(50), at(90), at(95), at(99), at(100)
	for i, c := range counts {
		if c > 0 {
			d.Min = new(edge(i))
			break
		}
	}
	return d
}
