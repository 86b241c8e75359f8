package stats_test

import (
	"strings"
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

// kernelRun is ten streams from witnessed, each with the OS's figures cpu
// (nil: none), summed and diagnosed: the shapes it gave, with evidence.
func kernelRun(t *testing.T, times []float64, frames []int, kernel func(i int) record.WitnessRead, cpu *record.ClientCPU) (stats.Summary, map[string]string) {
	t.Helper()
	a := stats.NewAggregate(stats.DefaultStall)
	for seq := range 10 {
		reads := make([]record.WitnessRead, len(times))
		for i := range reads {
			reads[i] = kernel(i)
		}
		r := witnessed(times, frames, reads)
		r.Seq, r.Phase, r.PromptID, r.HTTPStatus = seq, record.PhaseMeasure, "p", 200
		r.Witness.TCP = []record.TCPSample{{At: record.TCPAtHeaders}, {At: record.TCPAtEnd, MinRTTMS: 0.02}}
		if cpu != nil {
			c := *cpu
			r.ClientCPU = &c
		}
		if err := stats.Derive(r, stats.DefaultStall); err != nil {
			t.Fatal(err)
		}
		a.Add(r)
	}
	s := a.Summary(stats.Workload{})
	shapes := map[string]string{}
	for _, d := range s.Diagnosis {
		shapes[d.Shape] = d.Hint + " | " + d.Evidence
	}
	return s, shapes
}

// TestClientLimitedOnlyWhenTheReaderWasLate: the OS says drip's threads
// waited (a busy machine) in both runs; only the run whose reader the
// kernel saw take its reads late is client-limited, with the lag as
// evidence and the OS's figures beside it as context.
func TestClientLimitedOnlyWhenTheReaderWasLate(t *testing.T) {
	t.Parallel()
	times := []float64{0, 20, 40, 60, 80, 100, 120, 140}
	frames := []int{5, 5, 5, 5, 5, 5, 5, 5}
	busy := &record.ClientCPU{WindowMS: 160, MaxThreadWaitMS: 40}
	_, kept := kernelRun(t, times, frames, func(int) record.WitnessRead { return record.WitnessRead{LagMS: 0.08, Segs: 5} }, busy)
	if ev, ok := kept[stats.ShapeClientLimited]; ok {
		t.Errorf("a reader that kept up on a busy machine is client-limited: %s", ev)
	}
	_, late := kernelRun(t, times, frames, func(int) record.WitnessRead { return record.WitnessRead{LagMS: 45, Segs: 5} }, busy)
	ev, ok := late[stats.ShapeClientLimited]
	if !ok {
		t.Fatalf("a reader 45 ms late: shapes %v, want client-limited", late)
	}
	for _, want := range []string{"10 of 10 stamped streams (100%) had a late reader", "reader lag p50 45 ms, p99 45 ms", "80 content reads merged frames that arrived in separate segments", "context: "} {
		if !strings.Contains(ev, want) {
			t.Errorf("evidence %q lacks %q", ev, want)
		}
	}
}

// TestLostSegmentsAreTheNetworks: freezes each ended by a read that took
// out-of-order segments read as the network's, never as a proxy's
// stutter, and the streams keep their ITL.
func TestLostSegmentsAreTheNetworks(t *testing.T) {
	t.Parallel()
	times := []float64{0, 300, 600, 900, 1200}
	frames := []int{6, 6, 6, 6, 6}
	s, shapes := kernelRun(t, times, frames, func(i int) record.WitnessRead {
		if i == 0 {
			return record.WitnessRead{LagMS: 0.1, Segs: 6}
		}
		return record.WitnessRead{LagMS: 0.1, Segs: 6, OutOfOrder: 5}
	}, nil)
	ev, ok := shapes[stats.ShapeNetworkLoss]
	if !ok || shapes[stats.ShapeProxyStutter] != "" || shapes[stats.ShapeProxyBuffering] != "" || shapes[stats.ShapeTransport] != "" {
		t.Fatalf("shapes %v: want network-loss and no proxy", shapes)
	}
	if !strings.Contains(ev, "40 of 40 silences (100%) ended with a read that took out-of-order segments") {
		t.Errorf("evidence %q", ev)
	}
	if s.Streams.Buffered != 0 || s.Signals.Stutter != 0 || s.Witness.LossLed != 10 {
		t.Errorf("buffered %d, stutter %d, loss-led %d: want the rule lifted from all 10", s.Streams.Buffered, s.Signals.Stutter, s.Witness.LossLed)
	}
}

// TestFramesMergedBeforeTheSocketNameBothOwners: bursts whose frames came
// in one segment each are a proxy's interval or the server's batches, and
// the hint names both and drip hops; nothing is said held.
func TestFramesMergedBeforeTheSocketNameBothOwners(t *testing.T) {
	t.Parallel()
	times := []float64{0, 200, 400, 600, 800, 1000}
	frames := []int{6, 6, 6, 6, 6, 6}
	_, shapes := kernelRun(t, times, frames, func(int) record.WitnessRead { return record.WitnessRead{LagMS: 0.1, Segs: 1} }, nil)
	hint := shapes[stats.ShapeProxyStutter] + shapes[stats.ShapeProxyBuffering]
	for _, want := range []string{"a proxy forwarding on an interval", "the server writing tokens in batches", "drip hops", "60 content reads merged frames that came in one segment"} {
		if !strings.Contains(hint, want) {
			t.Errorf("hint %q lacks %q", hint, want)
		}
	}
	if strings.Contains(hint, " held") {
		t.Errorf("hint %q says held", hint)
	}
}

// TestASilenceEndedByOneFrameIsTheServers: a server's 700 ms pause, each
// frame in a segment of its own, reads as the server's stall, and the
// transport hint's proxy is not suspected.
func TestASilenceEndedByOneFrameIsTheServers(t *testing.T) {
	t.Parallel()
	times := []float64{0, 20, 40, 60, 760, 780, 800, 820}
	frames := []int{1, 1, 1, 1, 1, 1, 1, 1}
	_, shapes := kernelRun(t, times, frames, func(int) record.WitnessRead { return record.WitnessRead{LagMS: 0.1, Segs: 1} }, nil)
	if _, ok := shapes[stats.ShapeServerStalls]; !ok || shapes[stats.ShapeTransport] != "" {
		t.Errorf("shapes %v: want server-stalls, no transport", shapes)
	}
}

// TestASilenceTheReaderMergedIsNoHops: a server's 700 ms pause whose end
// the reader took late, two frames that came in two segments in one
// read, is still no hop's: nothing was merged before the socket and
// nothing lost, so the transport hint's proxy is not suspected.
func TestASilenceTheReaderMergedIsNoHops(t *testing.T) {
	t.Parallel()
	var times []float64
	var frames []int
	for i := range 30 {
		t := float64(20 * i)
		if i >= 15 {
			t += 700
		}
		times, frames = append(times, t), append(frames, 1)
	}
	frames[15] = 2 // the read that ended the pause took two segments
	_, shapes := kernelRun(t, times, frames, func(i int) record.WitnessRead {
		return record.WitnessRead{LagMS: 0.1, Segs: int32(frames[i])}
	}, nil)
	if _, ok := shapes[stats.ShapeServerStalls]; !ok || shapes[stats.ShapeTransport] != "" {
		t.Errorf("shapes %v: want server-stalls, no transport", shapes)
	}
}
