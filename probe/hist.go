package probe

import (
	"math"
	"slices"
)

// Histogram is a mergeable log-bucketed histogram of non-negative values
// (milliseconds, tokens, rates). Bucket i holds values in
// [HistMin·γ^i, HistMin·γ^(i+1)) with γ = 1.01, and reports each as the
// harmonic midpoint 2·lo·hi/(lo+hi), so a value read back is within
// (γ−1)/(γ+1) < 0.5% of the value recorded. Values below HistMin count as 0:
// their absolute error is under HistMin. Two histograms merge by adding
// bucket counts, so histograms from several runs or hosts combine exactly.
type Histogram struct {
	zero   uint64   // values below HistMin
	counts []uint64 // grown to the highest bucket seen
	n      uint64
}

// Histogram resolution.
const (
	HistMin           = 0.001 // smallest value kept apart from 0 (1 µs when in ms)
	histGamma         = 1.01
	HistRelativeError = (histGamma - 1) / (histGamma + 1) // ≈ 0.4975%
)

var logGamma = math.Log(histGamma)

func histBucket(v float64) int { return int(math.Log(v/HistMin) / logGamma) }

func histValue(i int) float64 {
	lo := HistMin * math.Exp(float64(i)*logGamma)
	hi := lo * histGamma
	return 2 * lo * hi / (lo + hi)
}

// Add records one value; negative and NaN values count as 0.
func (h *Histogram) Add(v float64) {
	h.n++
	if !(v >= HistMin) {
		h.zero++
		return
	}
	i := histBucket(v)
	if i >= len(h.counts) {
		h.counts = append(h.counts, make([]uint64, i+1-len(h.counts))...)
	}
	h.counts[i]++
}

// Merge adds every value of o to h.
func (h *Histogram) Merge(o *Histogram) {
	h.n += o.n
	h.zero += o.zero
	if len(o.counts) > len(h.counts) {
		h.counts = append(h.counts, make([]uint64, len(o.counts)-len(h.counts))...)
	}
	for i, c := range o.counts {
		h.counts[i] += c
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
			return histValue(i)
		}
	}
	return histValue(len(h.counts) - 1)
}

// Percentile interpolates linearly between closest ranks like Percentile
// does over raw samples; NaN when empty. Each rank is read back within the
// histogram's relative error, and so is a convex combination of two.
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
// moves to a Histogram: percentiles are exact up to this many samples per
// metric and within HistRelativeError beyond.
const DefaultExactSamples = 50_000

// Sampler collects one metric's values with memory that does not grow with
// the run: the raw values up to DefaultExactSamples, then a Histogram.
// Count, min, max and mean stay exact throughout. The zero value is ready.
type Sampler struct {
	limit         int
	exact         []float64
	hist          *Histogram
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
	if s.hist != nil {
		s.hist.Add(v)
		return
	}
	s.exact = append(s.exact, v)
	if len(s.exact) > s.limit {
		s.hist = &Histogram{}
		for _, x := range s.exact {
			s.hist.Add(x)
		}
		s.exact = nil
	}
}

// AddPtr records a defined value and skips an undefined one.
func (s *Sampler) AddPtr(v *float64) {
	if v != nil {
		s.Add(*v)
	}
}

// Merge adds every value o recorded (o's histogram when it has one).
func (s *Sampler) Merge(o *Sampler) {
	if o.hist == nil {
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
	if s.hist == nil {
		s.hist = &Histogram{}
		for _, x := range s.exact {
			s.hist.Add(x)
		}
		s.exact = nil
	}
	s.hist.Merge(o.hist)
	s.n += o.n
	s.sum += o.sum
}

// N is the number of values recorded.
func (s *Sampler) N() int { return s.n }

// Dist summarises the values: exact while they fit under the cap, from the
// histogram (marked) beyond it, with min, max and mean exact either way.
func (s *Sampler) Dist() Dist {
	if s.hist == nil {
		return NewDist(slices.Clone(s.exact))
	}
	clamp := func(v float64) *float64 { return ptr(min(max(v, s.min), s.max)) }
	return Dist{
		N: s.n, Min: ptr(s.min), Max: ptr(s.max), Mean: ptr(s.sum / float64(s.n)),
		P50: clamp(s.hist.Percentile(50)), P90: clamp(s.hist.Percentile(90)),
		P95: clamp(s.hist.Percentile(95)), P99: clamp(s.hist.Percentile(99)),
		Histogram: true,
	}
}
