package stats

import (
	"slices"
	"testing"

	"github.com/driplab/drip/record"
)

// forwarded is the fixture's steady stream (38 words, the first at 180 ms,
// then one every 25 ms) as a forwarder hands it on: each frame arrives at
// the first read time at or after it was written, reads at the given
// times (ascending), the frames left after the last read in one read at
// the last frame's time (the end of the answer is sent at once).
func forwarded(readAt []float64) *record.Record {
	at := func(i int) float64 { return 180 + 25*float64(i) }
	arrive := func(i int) (float64, int) {
		k, _ := slices.BinarySearch(readAt, at(i))
		if k == len(readAt) {
			return at(37), k
		}
		return readAt[k], k
	}
	return stream(38, 180, func(i int) float64 { t, _ := arrive(i); return t }, func(i int) int { _, k := arrive(i); return k })
}

// ticks are read times every period ms from first, up to 1,100 ms.
func ticks(first, period float64) []float64 {
	var out []float64
	for t := first; t < 1100; t += period {
		out = append(out, t)
	}
	return out
}

// The delivery classes on records shaped like the ones measured
// (docs/delivery.md): haproxy's bursts every ~224 ms are stutter, with
// ITL end to end when the first frame passed at once; nginx's buffer
// handovers, a direct stream with pauses and a fast server whose frames
// share reads are not.
func TestStutterClass(t *testing.T) {
	haproxy := append([]float64{180}, ticks(180+224, 224)...)
	for _, tc := range []struct {
		name      string
		rec       *record.Record
		class     string
		rule      string
		firstHeld bool
		period    float64
		freezes   int
	}{
		// First frame at once, then bursts of ~9 frames every 224 ms.
		{name: "haproxy, first frame at once", rec: forwarded(haproxy),
			class: record.DeliveryStutter, rule: DeliveryInterval, period: 224, freezes: 4},
		// The same with the first two frames in one read: the first held.
		{name: "haproxy, first frame held", rec: forwarded(append([]float64{205}, ticks(205+224, 224)...)),
			class: record.DeliveryStutter, rule: DeliveryInterval, firstHeld: true, period: 224, freezes: 4},
		// nginx's default buffering: 4 KiB (~19 frames) at a time.
		{name: "nginx buffer handovers", rec: forwarded([]float64{657}),
			class: record.DeliveryBuffered, rule: DeliveryBursts},
		// A real model through nginx: 128 tokens in 6 reads 1.2 s apart:
		// regular, but a second a burst is a held answer.
		{name: "buffer handovers 1.2 s apart", rec: stream(128, 150, func(i int) float64 { return 1200 * float64(1+i*6/128) }, func(i int) int { return i * 6 / 128 }),
			class: record.DeliveryBuffered, rule: DeliveryBursts},
		// Direct, a read a frame, with pauses of 700 and 300 ms.
		{name: "direct with pauses", rec: stream(55, 180, func(i int) float64 {
			return 180 + 25*float64(i) + 700*float64(min(1, i/20)) + 300*float64(min(1, i/40))
		}, func(i int) int { return i }), class: record.DeliveryClean},
		// A fast server: 64 frames 0.5 ms apart, mostly two or three to a
		// read, now and then a 5 ms wait (the measured shape direct).
		{name: "fast server, shared reads", rec: stream(64, 180, func(i int) float64 {
			return 41 + 0.5*float64(i-i%3) + 5*float64(i/30)
		}, func(i int) int { return i / 3 }), class: record.DeliveryClean},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.rec
			derive(t, r, DefaultStall)
			d := r.Delivery
			if d.Class != tc.class || d.Rule != tc.rule || r.Buffered != (tc.class == record.DeliveryBuffered) {
				t.Fatalf("class %q rule %q buffered %v, want %q %q (%+v)", d.Class, d.Rule, r.Buffered, tc.class, tc.rule, *d)
			}
			if tc.class != record.DeliveryStutter {
				if d.PeriodMS != nil || d.Freezes != nil || d.FirstHeld != nil {
					t.Errorf("stutter evidence on a %s stream: %+v", d.Class, *d)
				}
				return
			}
			eq(t, "period", d.PeriodMS, tc.period)
			if d.Freezes == nil || d.Freezes.Count != tc.freezes || d.FirstHeld == nil || *d.FirstHeld != tc.firstHeld {
				t.Fatalf("freezes %+v first held %v, want %d freezes, first held %v", d.Freezes, d.FirstHeld, tc.freezes, tc.firstHeld)
			}
			if tc.firstHeld {
				null(t, "itl", r.ITLMS)
				return
			}
			eq(t, "itl", r.ITLMS, 25) // first and last frame on time
		})
	}
}

// A run of stutter streams: the summary counts their freezes (each
// under the 250 ms stall threshold, so no stall), and the diagnosis names
// an interval-forwarding proxy, not buffering, and no transport.
func TestStutterSummaryAndHint(t *testing.T) {
	a := NewAggregate(DefaultStall)
	for i, first := range []float64{180, 180, 205} {
		r := forwarded(append([]float64{first}, ticks(first+224, 224)...))
		r.Seq, r.Phase, r.PromptID = i, record.PhaseMeasure, "p"
		derive(t, r, DefaultStall)
		a.Add(r)
	}
	s := a.Summary(Workload{})
	f := s.Freezes
	if f.Streams != 3 || f.Count != 12 || f.FirstHeld != 1 || s.Stalls.Count != 0 || f.LongestMS == nil || *f.PeriodMinMS != 224 {
		t.Errorf("freezes %+v, stalls %d: want 12 freezes in 3 streams, 1 first held, period 224 ms, no stall", f, s.Stalls.Count)
	}
	if s.Streams.Buffered != 0 || s.Metrics["itl_ms"].N != 2 {
		t.Errorf("buffered %d, itl n %d: want 0 and 2 (the streams whose first frame passed)", s.Streams.Buffered, s.Metrics["itl_ms"].N)
	}
	got := diagShapes(s)
	if !slices.Contains(got, ShapeProxyStutter) || slices.Contains(got, ShapeProxyBuffering) || slices.Contains(got, ShapeTransport) {
		t.Errorf("diagnosis %v: want proxy-stutter, neither proxy-buffering nor transport", got)
	}
}

func diagShapes(s Summary) []string { return shapesOf(s.Diagnosis) }

func shapesOf(ds []Diagnosis) []string {
	var out []string
	for _, d := range ds {
		out = append(out, d.Shape)
	}
	return out
}
