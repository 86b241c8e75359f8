package probe

import (
	"math"
	"testing"
	"time"
)

// The schedule: a Poisson process's count over 4 s at 10/s is Poisson
// distributed (mean = variance = 40) and the same for the same seed; the
// constant schedule sends exactly 40.
func TestArrivalSchedule(t *testing.T) {
	count := func(kind string, seed int64) int {
		a := newArrivals(Arrivals{Kind: kind, Rate: 10, Seed: seed})
		n := 0
		for a.next() < 4*time.Second {
			n++
		}
		return n
	}
	if n := count(ArrivalConstant, 1); n != 40 {
		t.Errorf("constant: %d arrivals in 4s at 10/s", n)
	}
	if first, again := count(ArrivalPoisson, 42), count(ArrivalPoisson, 42); first != again {
		t.Error("the same seed gave two schedules")
	}
	const seeds = 4000
	sum, sq := 0.0, 0.0
	for s := range int64(seeds) {
		n := float64(count(ArrivalPoisson, s))
		sum += n
		sq += n * n
	}
	mean := sum / seeds
	variance := sq/seeds - mean*mean
	// Standard errors at 4000 seeds: mean ±0.1, variance ±0.9.
	if mean < 39.5 || mean > 40.5 || variance < 36 || variance > 44 {
		t.Errorf("Poisson counts: mean %.2f variance %.2f, want both ≈ 40", mean, variance)
	}
	t.Logf("poisson counts over %d seeds: mean %.2f variance %.2f; seed 42 sends %d", seeds, mean, variance, count(ArrivalPoisson, 42))
}

// --burstiness is vLLM's: gamma gaps of shape B and mean 1/rate, so the
// gaps' squared coefficient of variation is 1/B (burstier below 1, more
// even above, Poisson at 1), and the rate is the same whatever B.
func TestGammaArrivals(t *testing.T) {
	t.Parallel()
	for _, b := range []float64{0.25, 1, 4} {
		a := newArrivals(Arrivals{Kind: ArrivalGamma, Rate: 10, Burstiness: b, Seed: 3})
		const n = 200_000
		var sum, sq float64
		prev := time.Duration(0)
		for range n {
			at := a.next()
			gap := (at - prev).Seconds()
			prev = at
			sum += gap
			sq += gap * gap
		}
		mean := sum / n
		cv2 := (sq/n - mean*mean) / (mean * mean)
		if math.Abs(mean-0.1) > 0.002 || math.Abs(cv2-1/b) > 0.05/b {
			t.Errorf("burstiness %v: gap mean %.4f s, CV² %.3f; want 0.1 s and %.3f", b, mean, cv2, 1/b)
		}
	}
}

// A ramp raises the rate linearly from 0 to --rate over its length, then
// holds it: at 10/s over 10 s, 50 arrivals in the ramp (the area under
// the rate), then 10 a second.
func TestRampArrivals(t *testing.T) {
	t.Parallel()
	a := newArrivals(Arrivals{Kind: ArrivalConstant, Rate: 10, Ramp: 10 * time.Second})
	var at []time.Duration
	for range 151 {
		at = append(at, a.next())
	}
	count := func(d time.Duration) int {
		n := 0
		for _, x := range at {
			if x < d {
				n++
			}
		}
		return n
	}
	if c5, c10, c15 := count(5*time.Second), count(10*time.Second), count(15*time.Second); c5 != 13 || c10 != 50 || c15 != 100 {
		t.Errorf("arrivals by 5 s, 10 s, 15 s: %d, %d, %d; want 13 (10·5²/20, rounded up), 50, 100", c5, c10, c15)
	}
	if gap := at[150] - at[149]; gap != 100*time.Millisecond {
		t.Errorf("after the ramp the gap is %v, want 100ms", gap)
	}
}
