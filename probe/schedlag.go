package probe

import (
	"math"
	"runtime/metrics"
)

// ClientLagBoundMS is the p99 of drip's own scheduling latency at or above
// which a run is client-limited: when goroutines wait this long for a core
// after they became runnable, every read, write and timer of a stream is
// late by about as much, and millisecond figures describe this machine.
const ClientLagBoundMS = 10.0

// clientLagMinSamples: fewer sampled wake-ups than this make the p99 one
// hiccup, not a tail (a few streams give a few dozen).
const clientLagMinSamples = 100

// ClientLagShare: the lag explains the latency only when its p99 is also
// at least this share of the TTFT p50; 12 ms of lag under a 180 ms TTFT
// (300 streams on 2 cores) is a tail, not the figure.
const ClientLagShare = 0.1

const schedLatencies = "/sched/latencies:seconds"

// schedWatch measures how late drip's goroutines ran after they became
// runnable — a reader woken by the network poller when its data arrived
// included — over a stretch of a run, from the Go runtime's own
// histogram (which samples about one transition in eight). It costs two
// reads of the runtime's metrics, nothing on the read path.
type schedWatch struct {
	start metrics.Float64Histogram
}

func readSchedLatencies() metrics.Float64Histogram {
	s := []metrics.Sample{{Name: schedLatencies}}
	metrics.Read(s)
	if s[0].Value.Kind() != metrics.KindFloat64Histogram {
		return metrics.Float64Histogram{}
	}
	h := s[0].Value.Float64Histogram()
	return metrics.Float64Histogram{Counts: append([]uint64(nil), h.Counts...), Buckets: h.Buckets}
}

func startSchedWatch() *schedWatch { return &schedWatch{start: readSchedLatencies()} }

// dist is the scheduling latency since the watch started, in ms.
func (w *schedWatch) dist() Dist {
	end := readSchedLatencies()
	counts := make([]uint64, len(end.Counts))
	for i := range counts {
		counts[i] = end.Counts[i]
		if i < len(w.start.Counts) {
			counts[i] -= w.start.Counts[i]
		}
	}
	return histDist(counts, end.Buckets)
}

// histDist reads percentiles from bucket counts as each bucket's upper
// edge (its lower one for the open last bucket), in ms: a figure no
// sample in the bucket exceeds.
func histDist(counts []uint64, buckets []float64) Dist {
	var n uint64
	for _, c := range counts {
		n += c
	}
	d := Dist{N: int(n)}
	if n == 0 {
		return d
	}
	edge := func(i int) float64 {
		v := buckets[i+1]
		if math.IsInf(v, 1) {
			v = buckets[i]
		}
		return max(v, 0) * 1000
	}
	at := func(p float64) *float64 {
		rank := uint64(math.Ceil(p / 100 * float64(n)))
		var cum uint64
		for i, c := range counts {
			if cum += c; cum >= max(rank, 1) {
				return ptr(edge(i))
			}
		}
		return ptr(edge(len(counts) - 1))
	}
	d.P50, d.P90, d.P95, d.P99, d.Max = at(50), at(90), at(95), at(99), at(100)
	for i, c := range counts {
		if c > 0 {
			d.Min = ptr(edge(i))
			break
		}
	}
	return d
}
