package stats

import (
	"math/rand/v2"
	"slices"
	"testing"
)

func TestPoolPercentileMatchesPercentile(t *testing.T) {
	t.Parallel()
	rng := rand.New(rand.NewPCG(1, 2))
	for _, streams := range []int{1, 2, 3, 10, 40} {
		for _, dups := range []bool{false, true} {
			data := make([][]float64, streams)
			for i := range data {
				data[i] = make([]float64, 1+rng.IntN(30))
				for j := range data[i] {
					data[i][j] = rng.Float64() * 1000
					if dups {
						data[i][j] = float64(rng.IntN(5)) * 25 // many equal values, as fixture gaps are
					}
				}
			}
			p := newPool(data)
			for range 20 {
				// A random resample, and the pooled observations it stands for.
				var expanded []float64
				n := 0
				for k := range p.weight {
					p.weight[k] = 0
					if k == 0 || rng.IntN(2) == 0 {
						p.weight[k] = 1 + rng.IntN(3)
					}
					for range p.weight[k] {
						expanded = append(expanded, data[k]...)
						n += len(data[k])
					}
				}
				slices.Sort(expanded)
				for _, pct := range []float64{0, 2.5, 50, 90, 95, 97.5, 99, 100} {
					if got, want := p.percentile(pct, n), Percentile(expanded, pct); got != want {
						t.Fatalf("%d streams dups=%v p%v: pool %v, Percentile %v", streams, dups, pct, got, want)
					}
				}
			}
		}
	}
}

// streamsOf makes n streams of one observation each.
func streamsOf(vals ...float64) [][]float64 {
	out := make([][]float64, len(vals))
	for i, v := range vals {
		out[i] = []float64{v}
	}
	return out
}

func TestBootstrapDiff(t *testing.T) {
	t.Parallel()
	rngOf := func() *rand.Rand { return rand.New(rand.NewPCG(7, 7)) }
	a := streamsOf(200, 205, 210, 195, 190, 202, 208, 199)
	shifted := streamsOf(400, 405, 410, 395, 390, 402, 408, 399)
	same := streamsOf(201, 204, 211, 194, 191, 203, 207, 198)

	ci := BootstrapDiff(a, shifted, 50, DefaultResamples, rngOf())
	if ci == nil || ci.Lo <= 0 || ci.Lo > 200 || ci.Hi < 200 {
		t.Errorf("a shift of 200: interval %+v, want one above 0 containing 200", ci)
	}
	ci = BootstrapDiff(a, same, 50, DefaultResamples, rngOf())
	if ci == nil || ci.Lo > 0 || ci.Hi < 0 {
		t.Errorf("same distribution: interval %+v, want one containing 0", ci)
	}
	again := BootstrapDiff(a, same, 50, DefaultResamples, rngOf())
	if *again != *ci {
		t.Errorf("same seed gave %+v then %+v", ci, again)
	}
	if ci := BootstrapDiff(streamsOf(1, 2), shifted, 50, DefaultResamples, rngOf()); ci != nil {
		t.Errorf("two streams in the baseline: interval %+v, want none", ci)
	}
}

// A stream's observations move together: resampling whole streams must
// give a wider interval than pretending every gap is independent.
func TestBootstrapResamplesWholeStreams(t *testing.T) {
	t.Parallel()
	slow, fast := make([]float64, 50), make([]float64, 50)
	for i := range slow {
		slow[i], fast[i] = 100, 10
	}
	a := [][]float64{slow, fast, fast, slow}
	b := [][]float64{fast, slow, fast, slow}
	ci := BootstrapDiff(a, b, 50, DefaultResamples, rand.New(rand.NewPCG(3, 3)))
	if ci == nil || ci.Lo > -50 || ci.Hi < 50 {
		t.Errorf("interval %+v: want it to span the stream-to-stream difference of 90", ci)
	}
}

func BenchmarkBootstrapGaps(b *testing.B) {
	// 100 streams of 200 gaps a side: a long run's gap distribution.
	rng := rand.New(rand.NewPCG(1, 1))
	mk := func() [][]float64 {
		s := make([][]float64, 100)
		for i := range s {
			s[i] = make([]float64, 200)
			for j := range s[i] {
				s[i][j] = rng.ExpFloat64() * 25
			}
		}
		return s
	}
	x, y := mk(), mk()
	for b.Loop() {
		BootstrapDiff(x, y, 95, DefaultResamples, rand.New(rand.NewPCG(1, 1)))
	}
}
