package htmlreport

import (
	"cmp"
	"fmt"
	"math"
	"slices"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// The heatmap's grid has at most heatRows rows of streams and heatCols
// columns of gap index. Past them a row or column holds several, shaded by
// the largest gap in it, so a stall is never averaged away.
const (
	heatRows, heatCols = 120, 60
	heatLabelW, heatW  = 70.0, 840.0
)

// heatmap is one row per stream (or group of streams) and one column per
// gap index (or group), shaded by gap on a log scale, the last shade a
// stall.
type heatmap struct {
	Cells  []heatCell
	Labels []axisTick // X is the row's middle
	Height float64
	RowH   float64
	Note   string
	Legend []string
}

type heatCell struct {
	X, Y, W float64
	Shade   int
	Tip     string
}

// newHeatmap lays out the streams in sequence, by seq. The records come
// in the order they ended, which under load is not the order they began.
func newHeatmap(recs []*record.Record, stallMS float64) heatmap {
	recs = slices.SortedStableFunc(slices.Values(recs), func(a, b *record.Record) int { return cmp.Compare(a.Seq, b.Seq) })
	maxGaps := 0
	gaps := make([][]float64, len(recs))
	for i, r := range recs {
		gaps[i] = r.Gaps()
		maxGaps = max(maxGaps, len(gaps[i]))
	}
	if maxGaps == 0 {
		return heatmap{Note: "no gaps: they need two content frames in a stream"}
	}
	perRow := (len(recs) + heatRows - 1) / heatRows
	perCol := (maxGaps + heatCols - 1) / heatCols
	cols := (maxGaps + perCol - 1) / perCol
	cellW := heatW / float64(cols)
	edges := stats.HeatShadeEdges(stallMS)
	rows := (len(recs) + perRow - 1) / perRow
	rowH := r1(min(14, max(3, 360/float64(rows))))
	h := heatmap{Height: float64(rows) * rowH, RowH: rowH}
	labelEvery := int(math.Ceil(12 / rowH))
	for row := 0; row*perRow < len(recs); row++ {
		a, b := row*perRow, min(len(recs), (row+1)*perRow)
		who := views.RunLabel(recs[a].Seq+1, recs[a])
		if b-a > 1 {
			who = "streams " + who + " – " + views.RunLabel(recs[b-1].Seq+1, recs[b-1])
		}
		if row%labelEvery == 0 {
			h.Labels = append(h.Labels, axisTick{X: (float64(row) + 0.5) * rowH, Label: views.RunLabel(recs[a].Seq+1, recs[a])})
		}
		h.Cells = append(h.Cells, heatRow(gaps[a:b], perCol, cellW, float64(row)*rowH, edges, who)...)
	}
	h.Note = fmt.Sprintf("%d streams in sequence, %d per row; gap index left to right, %d per column; each cell shaded by the largest gap in it", len(recs), perRow, perCol)
	h.Legend = []string{"light: < " + textfmt.MS(edges[0]), "grey: < " + textfmt.MS(edges[1]), "dark: < " + textfmt.MS(edges[2]), "hatched: a stall, ≥ " + textfmt.MS(stallMS)}
	return h
}

// heatRow is one row's cells above the lightest shade, neighbours of one
// shade joined into one rectangle.
func heatRow(gaps [][]float64, perCol int, cellW, y float64, edges [3]float64, who string) []heatCell {
	var largest []float64
	for _, g := range gaps {
		for i, v := range g {
			c := i / perCol
			for len(largest) <= c {
				largest = append(largest, 0)
			}
			largest[c] = max(largest[c], v)
		}
	}
	var out []heatCell
	for c := 0; c < len(largest); {
		sh := stats.HeatShade(largest[c], edges)
		top, d := largest[c], c+1
		for ; d < len(largest) && stats.HeatShade(largest[d], edges) == sh; d++ {
			top = max(top, largest[d])
		}
		if sh > 0 {
			out = append(out, heatCell{X: r1(heatLabelW + float64(c)*cellW), Y: r1(y), W: r1(float64(d-c) * cellW), Shade: sh,
				Tip: fmt.Sprintf("%s · gaps %d–%d · largest %s", who, c*perCol+1, d*perCol, textfmt.MS(top))})
		}
		c = d
	}
	return out
}
