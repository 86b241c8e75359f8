package probe

import (
	"runtime/metrics"

	"github.com/driplab/drip/stats"
)

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
func (w *schedWatch) dist() stats.Dist {
	end := readSchedLatencies()
	counts := make([]uint64, len(end.Counts))
	for i := range counts {
		counts[i] = end.Counts[i]
		if i < len(w.start.Counts) {
			counts[i] -= w.start.Counts[i]
		}
	}
	return stats.BucketDist(counts, end.Buckets)
}
