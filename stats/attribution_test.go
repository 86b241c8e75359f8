package stats

import (
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

// fastDirect is the fixture's fast scenario read directly, as measured
// (docs/delivery.md): 64 frames 0.5 ms apart from ~41 ms, shape (0…3)
// choosing how many share a read — 86–97 % of the frames shared one.
func fastDirect(seq, shape int) *record.Record {
	group := []int{3, 2, 3, 1, 2, 3, 2, 2}[shape%8:]
	group = append(group, []int{3, 2, 3, 1, 2, 3, 2, 2}...)
	var readOf []int
	for k := 0; len(readOf) < 64; k++ {
		for range group[k%len(group)] {
			readOf = append(readOf, k)
		}
	}
	r := stream(64, 180, func(i int) float64 {
		// a read comes when its last frame was written
		last := i
		for last+1 < 64 && readOf[last+1] == readOf[i] {
			last++
		}
		return 41 + 0.1*float64(seq) + 0.5*float64(last)
	}, func(i int) int { return readOf[i] })
	r.Seq, r.Phase, r.PromptID = seq, record.PhaseMeasure, "p"
	return r
}

// Frames sharing reads at a sub-millisecond cadence are natural: a run
// of fast direct streams gets no transport hint (before, its shared
// reads alone made one), while a fat gap tail still does.
func TestTransportNeedsAHopsSignature(t *testing.T) {
	a := NewAggregate(DefaultStall)
	for i := range 10 {
		r := fastDirect(i, i)
		derive(t, r, DefaultStall)
		a.Add(r)
	}
	s := a.Summary(Workload{})
	if pct(s.Signals.CoalescedFrames, s.Signals.ContentFrames) < 80 || s.Streams.Buffered != 0 {
		t.Fatalf("coalesced %d of %d, buffered %d: the records are not shaped like the measured ones", s.Signals.CoalescedFrames, s.Signals.ContentFrames, s.Streams.Buffered)
	}
	if got := diagShapes(s); slices.Contains(got, ShapeTransport) || slices.Contains(got, ShapeProxyBuffering) {
		t.Errorf("diagnosis %v: no transport or proxy hint for a fast server read directly", got)
	}
	s.Metrics["gap_ms"] = dist(630, 0.5, 1, 30) // silences well above the median gap
	if got := shapesOf(Diagnose(&s)); !slices.Contains(got, ShapeTransport) {
		t.Errorf("diagnosis %v: a fat gap tail is a hop's signature", got)
	}
}

// A first stream far slower than the rest without warmup is a cold
// start, not shared capacity; with warmup, or a first stream only a
// little slower, it is not said.
func TestColdStart(t *testing.T) {
	run := func(warmup int, first float64) Summary {
		a := NewAggregate(DefaultStall)
		for _, i := range []int{3, 0, 5, 1, 4, 2} { // finished out of order: seq decides
			ttft := 181 + float64(i)
			if i == 0 {
				ttft = first
			}
			r := stream(20, 100, func(k int) float64 { return ttft + 25*float64(k) }, func(k int) int { return k })
			r.Seq, r.Phase, r.PromptID = i, record.PhaseMeasure, "p"
			derive(t, r, DefaultStall)
			a.Add(r)
		}
		return a.Summary(Workload{Warmup: warmup})
	}
	s := run(0, 2029)
	got := diagShapes(s)
	if !slices.Contains(got, ShapeColdStart) || slices.Contains(got, ShapeSharedCapacity) {
		t.Fatalf("diagnosis %v: want cold-start, not shared-capacity", got)
	}
	for _, d := range s.Diagnosis {
		if d.Shape == ShapeColdStart && !strings.Contains(d.Hint, "first TTFT 2.03 s against 184 ms for the rest; use --warmup 1") {
			t.Errorf("hint %q", d.Hint)
		}
	}
	for _, tc := range []struct {
		warmup int
		first  float64
	}{{1, 2029}, {0, 400}} {
		if got := diagShapes(run(tc.warmup, tc.first)); slices.Contains(got, ShapeColdStart) {
			t.Errorf("warmup %d, first ttft %g ms: %v names a cold start", tc.warmup, tc.first, got)
		}
	}
}
