package htmlreport

import (
	"fmt"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// histogram is the gaps of every measured stream of a run in log buckets.
type histogram struct {
	Run   string // the run's letter in a comparison
	N     int
	Bars  []bar
	Note  string
	Width float64 // of the longest bar's count
}

// bar is one bucket.
type bar struct {
	Y, W       float64
	Label, Tip string
	Count      int
	Stall      bool // every gap in it is at or above the stall threshold
	CountX     float64
}

const (
	histLabelW, histBarW, histRowH = 120.0, 500.0, 18.0
)

// gapObservations are the gaps the summary pools, by the registry's rule.
func gapObservations(recs []*record.Record) []float64 {
	m := stats.Gap
	var out []float64
	for _, r := range recs {
		out = append(out, m.Observations(r)...)
	}
	return out
}

func newHistogram(recs []*record.Record, stallMS float64) histogram {
	gaps := gapObservations(recs)
	h := histogram{N: len(gaps)}
	if len(gaps) == 0 {
		h.Note = "no gaps: they need two content frames in a stream"
		return h
	}
	counts := stats.GapBucketCounts(gaps)
	lo, hi, most := len(counts), 0, 0
	for i, n := range counts {
		if n > 0 {
			lo, hi, most = min(lo, i), max(hi, i), max(most, n)
		}
	}
	for i := lo; i <= hi; i++ {
		w := histBarW * float64(counts[i]) / float64(most)
		if counts[i] > 0 {
			w = max(w, 2)
		}
		label := views.GapBucketLabel(i)
		h.Bars = append(h.Bars, bar{Y: float64(i-lo) * histRowH, W: r1(w), Label: label, Count: counts[i], CountX: r1(histLabelW + w + 4),
			Stall: i > 0 && stats.GapBucketFrom(i) >= stallMS,
			Tip:   fmt.Sprintf("%s: %d of %d gaps (%.1f%%)", label, counts[i], len(gaps), 100*float64(counts[i])/float64(len(gaps)))})
	}
	h.Note = fmt.Sprintf("%d gaps of every measured stream, log buckets; hatched: at or above the %s stall threshold", len(gaps), textfmt.MS(stallMS))
	return h
}

// Height is the histogram's drawing height.
func (h histogram) Height() float64 { return float64(len(h.Bars))*histRowH + 4 }
