package stats_test

import (
	"testing"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// witnessed is a complete stream of content reads, read i at times[i]
// carrying frames[i] content frames, with the kernel's account kernel[i].
func witnessed(times []float64, frames []int, kernel []record.WitnessRead) *record.Record {
	r := &record.Record{Witness: &record.Witness{Stamped: true, Reads: kernel}}
	for i, t := range times {
		for range frames[i] {
			r.Frames = append(r.Frames, record.Frame{TMS: t, Read: i, Kind: record.KindContent, Text: "a"})
		}
	}
	last := times[len(times)-1]
	r.Frames = append(r.Frames, record.Frame{TMS: last, Read: len(times) - 1, Kind: record.KindEnd})
	r.DurationMS = last
	return r
}

func TestWitnessTellsWhoMergedAndWhoWaited(t *testing.T) {
	t.Parallel()
	even := []float64{0, 20, 40, 60, 80, 100, 120, 140}
	for _, c := range []struct {
		name   string
		times  []float64
		frames []int
		kernel func(i int) record.WitnessRead
		want   func(w *record.Witness) bool
	}{
		{"batches in one segment each", []float64{0, 200, 400, 600, 800}, []int{5, 5, 5, 5, 5},
			func(int) record.WitnessRead { return record.WitnessRead{LagMS: 0.05, Segs: 1} },
			func(w *record.Witness) bool {
				return w.SocketMerges == 5 && w.ReaderMerges == 0 && w.Silences == record.Silences{Count: 4, Merged: 4} && !w.Late
			}},
		{"a reader late by 60 ms, taking segments that came apart", even, []int{1, 3, 1, 3, 1, 3, 1, 3},
			func(i int) record.WitnessRead { return record.WitnessRead{LagMS: 60, Segs: int32(max(1, 3*(i%2)))} },
			func(w *record.Witness) bool { return w.ReaderMerges == 4 && w.Late && *w.LagP99MS == 60 }},
		{"a silence the network made", []float64{0, 20, 40, 60, 700, 720}, []int{1, 1, 1, 1, 3, 1},
			func(i int) record.WitnessRead {
				if i == 4 {
					return record.WitnessRead{LagMS: 0.1, Segs: 3, OutOfOrder: 2}
				}
				return record.WitnessRead{LagMS: 0.1, Segs: 1}
			},
			func(w *record.Witness) bool { return w.Silences == record.Silences{Count: 1, Loss: 1} && !w.Late }},
		{"a server's stall ended by one frame", []float64{0, 20, 40, 740, 760, 780}, []int{1, 1, 1, 1, 1, 1},
			func(int) record.WitnessRead { return record.WitnessRead{LagMS: 0.1, Segs: 1} },
			func(w *record.Witness) bool {
				return w.Silences == record.Silences{Count: 1, OneFrame: 1} && w.SocketMerges == 0
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			t.Parallel()
			kernel := make([]record.WitnessRead, len(c.times))
			for i := range kernel {
				kernel[i] = c.kernel(i)
			}
			r := witnessed(c.times, c.frames, kernel)
			if err := stats.Derive(r, stats.DefaultStall); err != nil {
				t.Fatal(err)
			}
			if w := r.Witness; !c.want(w) {
				t.Errorf("witness: merges reader %d socket %d, silences %+v, late %v", w.ReaderMerges, w.SocketMerges, w.Silences, w.Late)
			}
		})
	}
}

func TestSummarySumsTheWitness(t *testing.T) {
	t.Parallel()
	a := stats.NewAggregate(stats.DefaultStall)
	for range 3 {
		r := witnessed([]float64{0, 200, 400}, []int{4, 4, 4}, []record.WitnessRead{{LagMS: 0.1, Segs: 1}, {LagMS: 0.2, Segs: 1}, {LagMS: 0.3, Segs: 1}})
		r.Phase = record.PhaseMeasure
		r.Witness.TCP = []record.TCPSample{{At: record.TCPAtHeaders}, {At: record.TCPAtEnd, MinRTTMS: 0.02, OutOfOrder: 2}}
		if err := stats.Derive(r, stats.DefaultStall); err != nil {
			t.Fatal(err)
		}
		a.Add(r)
	}
	s := a.Summary(stats.Workload{})
	w := s.Witness
	if w == nil || w.Streams != 3 || w.Reads != 9 || w.Segments != 9 || w.SocketMerges != 9 || w.OutOfOrder != 6 || w.MinRTT.N != 3 {
		t.Fatalf("witness summary %+v", w)
	}
	if lag := stats.ReaderLag.Of(s.Metrics); lag.N != 9 || *lag.Max != 0.3 {
		t.Errorf("reader lag %+v: want every read's", lag)
	}
}
