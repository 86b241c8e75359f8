package hops_test

import (
	"fmt"
	"runtime"
	"testing"
	"time"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
)

func analysePair(tb testing.TB, client, relay *record.Record) *hops.Report {
	rep, err := hops.Analyse(hops.File{Name: "client.jsonl", Records: []*record.Record{client}},
		[]hops.File{{Name: "relay.jsonl", Records: []*record.Record{relay}}})
	if err != nil {
		tb.Fatal(err)
	}
	return rep
}

// Matching and owning stalls is linear in frames, whatever the shape: the
// adversarial pair of 100k frames takes at most ten times as long as the
// even pair (quadratic, it took over 300 times as long; the command's 3×
// is measured in docs/performance.md, where reading the files dominates).
// Each is the least of five tries after a collection, so a busy machine's
// pause does not decide it.
func TestHopsIsLinearInFrames(t *testing.T) {
	if testing.Short() {
		t.Skip("times 100k frames")
	}
	least := func(shape string, n int) time.Duration {
		c, r := recordtest.HopsPair(t, shape, n)
		best := time.Duration(1 << 62)
		for range 5 {
			runtime.GC()
			start := time.Now()
			rep := analysePair(t, c, r)
			best = min(best, time.Since(start))
			if s := rep.Streams[0]; s.Aligned != n {
				t.Fatalf("%s, %d frames: %d aligned, want all", shape, n, s.Aligned)
			}
		}
		return best
	}
	even, adversarial := least(recordtest.HopsEven, 100_000), least(recordtest.HopsAdversarial, 100_000)
	if adversarial > 10*even {
		t.Errorf("the adversarial pair of 100k frames took %v, the even pair %v: %.1f times, want at most 10", adversarial, even, float64(adversarial)/float64(even))
	}
}

// BenchmarkHops is drip hops' matching and stall ownership (Analyse) on
// one pair of records, even and adversarial, at 10k, 100k and 1M frames
// (docs/performance.md).
func BenchmarkHops(b *testing.B) {
	for _, shape := range []string{recordtest.HopsEven, recordtest.HopsAdversarial} {
		for _, n := range []int{10_000, 100_000, 1_000_000} {
			b.Run(fmt.Sprintf("%s/%d", shape, n), func(b *testing.B) {
				c, r := recordtest.HopsPair(b, shape, n)
				b.ResetTimer()
				for b.Loop() {
					analysePair(b, c, r)
				}
			})
		}
	}
}
