package probe

import (
	"testing"
	"time"
)

// The schedule: a Poisson process's count over 4 s at 10/s is Poisson
// distributed (mean = variance = 40) and the same for the same seed; the
// constant schedule sends exactly 40.
func TestArrivalSchedule(t *testing.T) {
	count := func(kind string, seed int64) int {
		a := newArrivals(kind, 10, seed)
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
