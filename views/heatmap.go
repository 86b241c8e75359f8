package views

import (
	"fmt"
	"strings"

	"github.com/driplab/drip/probe"
)

// shadeGlyphs match Styles.Shades: a shade per log band of gap, the last a
// stall, readable without colour.
var shadeGlyphs = [4]rune{'░', '▒', '▓', '█'}

// shadeEdges are the upper edges of the first shades for a stall threshold:
// 10 ms and 50 ms, kept below the threshold.
func shadeEdges(stallMS float64) [3]float64 {
	e2 := min(50, stallMS)
	return [3]float64{min(10, e2), e2, stallMS}
}

func shade(v float64, edges [3]float64) int {
	for i, e := range edges {
		if v < e {
			return i
		}
	}
	return 3
}

// Heatmap renders one row per run (the current run last) and one column per
// content frame index, or per time bucket when byTime is set; each cell is
// shaded by the largest gap that ended in it, on a log scale, so a stall
// that recurs at the same point in every run forms a column. skip hides
// that many of the most recent rows (scrolling back through many runs).
func Heatmap(runs []*probe.Record, byTime bool, skip, width, height int, st *Styles) string {
	plotW := width - labelWidth
	if len(runs) == 0 || plotW < 4 || height < 1 {
		return fit(st.Dim.Render("no runs yet"), width, height)
	}
	stallMS := runs[len(runs)-1].StallMS
	edges := shadeEdges(stallMS)
	// Column of each gap, per run.
	type cell struct {
		col int
		gap float64
	}
	perRun := make([][]cell, len(runs))
	maxGaps, span := 0, 0.0
	for _, r := range runs {
		maxGaps = max(maxGaps, len(r.Gaps()))
		span = max(span, r.DurationMS, lastContent(r))
	}
	per := max(1, (maxGaps+plotW-1)/plotW)
	// Few frames: each frame index gets a wider column, so runs stay readable.
	cw := 1
	if !byTime && maxGaps > 0 && maxGaps < plotW {
		cw = plotW / maxGaps
	}
	for i, r := range runs {
		prev := -1.0
		k := 0
		for j := range r.Frames {
			f := &r.Frames[j]
			if !f.IsContent() {
				continue
			}
			if prev >= 0 {
				col := k / per
				if byTime {
					col = min(plotW-1, int(f.TMS/span*float64(plotW)))
				}
				perRun[i] = append(perRun[i], cell{col, f.TMS - prev})
				k++
			}
			prev = f.TMS
		}
	}
	rows := max(1, height-1)
	skip = max(0, min(skip, len(runs)-rows))
	last := len(runs) - skip
	first := max(0, last-rows)
	var lines []string
	for i := first; i < last; i++ {
		val := make([]float64, plotW)
		for c := range val {
			val[c] = -1
		}
		for _, c := range perRun[i] {
			for x := c.col * cw; x < (c.col+1)*cw && x < plotW; x++ {
				val[x] = max(val[x], c.gap)
			}
		}
		row := newRunes(plotW, ' ', nil)
		for c, v := range val {
			if v >= 0 {
				s := shade(v, edges)
				row.set(c, shadeGlyphs[s], &st.Shades[s])
			}
		}
		label := st.Dim.Render(padRight(fmt.Sprintf("#%d", runs[i].Seq+1), labelWidth))
		if i == len(runs)-1 {
			label = st.Value.Render(padRight(fmt.Sprintf("#%d", runs[i].Seq+1), labelWidth))
		}
		lines = append(lines, label+row.String())
	}
	if height >= 2 {
		lines = append(lines, heatLegend(edges, byTime, per, span, st))
	}
	return fit(strings.Join(lines, "\n"), width, height)
}

func heatLegend(edges [3]float64, byTime bool, per int, span float64, st *Styles) string {
	parts := []string{
		st.Shades[0].Render("░") + st.Dim.Render(" <"+axisLabel(edges[0])),
		st.Shades[1].Render("▒") + st.Dim.Render(" <"+axisLabel(edges[1])),
		st.Shades[2].Render("▓") + st.Dim.Render(" <"+axisLabel(edges[2])),
		st.Shades[3].Render("█") + st.Dim.Render(" stall ≥"+axisLabel(edges[2])),
	}
	cols := fmt.Sprintf("columns: frame index, %d per cell", per)
	if byTime {
		cols = "columns: time, 0–" + fmtMS(span)
	}
	return strings.Join(parts, " ") + st.Dim.Render(" · "+cols)
}
