package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"testing"
)

func within(got, want float64) bool {
	return math.Abs(got-want) <= HistRelativeError*math.Abs(want)+HistMin
}

// Past the exact-sample cap, every percentile stays within the stated
// relative error of the exact one, and count, min, max and mean stay exact.
func TestSamplerPastTheCap(t *testing.T) {
	rng := rand.New(rand.NewPCG(1, 2))
	for _, tc := range []struct {
		name string
		gen  func() float64
	}{
		{"lognormal latencies", func() float64 { return math.Exp(rng.NormFloat64()*1.2 + 5) }},
		{"gaps with zeros", func() float64 {
			if rng.IntN(4) == 0 {
				return 0
			}
			return rng.ExpFloat64() * 25
		}},
		{"uniform tokens", func() float64 { return float64(rng.IntN(2000)) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := Sampler{limit: 1000}
			var all []float64
			for range 20000 {
				v := tc.gen()
				s.Add(v)
				all = append(all, v)
			}
			if s.exact != nil || !s.overflow {
				t.Fatal("the sampler kept raw values past its cap")
			}
			got, want := s.Dist(), NewDist(slices.Clone(all))
			if !got.Histogram || want.Histogram {
				t.Error("from_histogram should mark only the histogram's figures")
			}
			if got.N != want.N || *got.Min != *want.Min || *got.Max != *want.Max || math.Abs(*got.Mean-*want.Mean) > 1e-9*math.Abs(*want.Mean) {
				t.Errorf("n/min/max/mean %d %v %v %v, want %d %v %v %v", got.N, *got.Min, *got.Max, *got.Mean, want.N, *want.Min, *want.Max, *want.Mean)
			}
			for _, p := range []string{"p50", "p90", "p95", "p99"} {
				g, _ := got.Stat(p)
				w, _ := want.Stat(p)
				if !within(*g, *w) {
					t.Errorf("%s = %v, exact %v: off by %.3f%% (bound %.3f%%)", p, *g, *w, 100*math.Abs(*g-*w) / *w, 100*HistRelativeError)
				}
			}
		})
	}
}

// Under the cap the figures are the exact ones.
func TestSamplerExactUnderTheCap(t *testing.T) {
	var s Sampler
	for _, v := range []float64{3, 1, 2} {
		s.Add(v)
	}
	d := s.Dist()
	if d.Histogram || *d.P50 != 2 || d.N != 3 {
		t.Errorf("dist %+v", d)
	}
	if (&Sampler{}).Dist().P50 != nil {
		t.Error("an empty sampler has a p50")
	}
}

// Histograms merge by adding buckets: merging two halves reads back the
// same percentiles as one histogram of everything.
func TestHistogramMerge(t *testing.T) {
	var a, b, all Histogram
	for i := range 10000 {
		v := float64(i%977) * 1.37
		all.Add(v)
		if i%2 == 0 {
			a.Add(v)
		} else {
			b.Add(v)
		}
	}
	a.Merge(&b)
	for _, p := range []float64{0, 1, 50, 99, 100} {
		if a.Percentile(p) != all.Percentile(p) {
			t.Errorf("p%v merged %v, whole %v", p, a.Percentile(p), all.Percentile(p))
		}
	}
	if a.N() != 10000 {
		t.Errorf("merged n %d", a.N())
	}
}

// Memory does not grow with the number of values once past the cap.
func TestSamplerBounded(t *testing.T) {
	s := Sampler{limit: 100}
	for i := range 1_000_000 {
		s.Add(float64(i % 5000))
	}
	if len(s.hist.counts) > 2000 || s.exact != nil {
		t.Errorf("%d buckets after a million values in [0,5000)", len(s.hist.counts))
	}
}
