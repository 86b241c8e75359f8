package views

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// shadeGlyphs match Styles.Shades, a shade per log band of gap with the
// last a stall, readable without colour.
var shadeGlyphs = [4]rune{'░', '▒', '▓', '█'}

// Heatmap renders one row per run (the current run last) and one column per
// content frame index, or per time bucket when byTime is set. Each cell is
// shaded by the largest gap that ended in it, on a log scale, so a stall
// that recurs at the same point in every run forms a column. skip hides
// that many of the most recent rows (scrolling back through many runs).
func Heatmap(runs []*record.Record, byTime bool, skip, width, height int, st *Styles) string {
	if len(runs) == 0 || width-labelWidth < 4 || height < 1 {
		return textfmt.Fit(st.Dim.Render("no runs yet"), width, height)
	}
	sc := heatScaleOf(runs, runs[len(runs)-1].StallMS)
	rows := max(1, height-1)
	lines := heatRows(runs, byTime, skip, rows, len(runs)-1, &st.Value, sc, width, st)
	if height >= 2 {
		lines = append(lines, heatLegend(stats.HeatShadeEdges(sc.stallMS), byTime, sc.per(width-labelWidth), sc.span, width, st))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// heatScale is what the columns of a heatmap mean. Several heatmaps drawn
// with one scale line up column by column.
type heatScale struct {
	maxGaps int     // the most gaps of any run, for frame index columns
	span    float64 // the longest run, for time columns
	stallMS float64 // the shades' threshold
}

// heatScaleOf is the scale that fits every run.
func heatScaleOf(runs []*record.Record, stallMS float64) heatScale {
	sc := heatScale{stallMS: stallMS}
	for _, r := range runs {
		sc.maxGaps = max(sc.maxGaps, gapCount(r))
		sc.span = max(sc.span, r.DurationMS, lastContent(r))
	}
	return sc
}

// gapCount is len(r.Gaps()) without making them. A live stream's heatmap
// is redrawn with every run's scale.
func gapCount(r *record.Record) int {
	n := 0
	for i := range r.Frames {
		if r.Frames[i].IsContent() {
			n++
		}
	}
	return max(0, n-1)
}

// per is how many frame indexes share a column of plotW.
func (sc heatScale) per(plotW int) int { return max(1, (sc.maxGaps+plotW-1)/plotW) }

// heatRows renders up to rows runs, skip of the most recent hidden, on the
// scale sc. The label of run hi is drawn with hiStyle.
func heatRows(runs []*record.Record, byTime bool, skip, rows, hi int, hiStyle *lipgloss.Style, sc heatScale, width int, st *Styles) []string {
	plotW := width - labelWidth
	edges := stats.HeatShadeEdges(sc.stallMS)
	// Few frames, so each frame index gets a wider column and runs stay readable.
	cw := 1
	if !byTime && sc.maxGaps > 0 && sc.maxGaps < plotW {
		cw = plotW / sc.maxGaps
	}
	skip = max(0, min(skip, len(runs)-rows))
	last := len(runs) - skip
	first := max(0, last-rows)
	var lines []string
	for i := first; i < last; i++ {
		val := make([]float64, plotW)
		for c := range val {
			val[c] = -1
		}
		eachGapCell(runs[i], byTime, sc, plotW, func(col int, gap float64) {
			for x := col * cw; x < (col+1)*cw && x < plotW; x++ {
				val[x] = max(val[x], gap)
			}
		})
		row := newCellRow(plotW, ' ', nil)
		for c, v := range val {
			if v >= 0 {
				s := stats.HeatShade(v, edges)
				row.set(c, shadeGlyphs[s], &st.Shades[s])
			}
		}
		style := &st.Dim
		if i == hi {
			style = hiStyle
		}
		lines = append(lines, style.Render(textfmt.PadRight(RunLabel(runs[i].Seq+1, runs[i]), labelWidth))+row.String())
	}
	return lines
}

// eachGapCell places a run's gaps in plotW columns, by frame index
// (sc.per indexes a column) or by time over sc.span, handing each to put.
func eachGapCell(r *record.Record, byTime bool, sc heatScale, plotW int, put func(col int, gap float64)) {
	per := sc.per(plotW)
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
				col = min(plotW-1, int(f.TMS/sc.span*float64(plotW)))
			}
			put(col, f.TMS-prev)
			k++
		}
		prev = f.TMS
	}
}

// heatLegend explains the shades and the columns in width cells. Short of
// room the columns' note is shortened, then left out. The shades stay.
// heatShadesShort is the shades' key with the unit said once at its end,
// "░ <10 ▒ <50 ▓ <250 █ stall ≥250 ms", for a panel too narrow for four
// units. Edges in different units keep each its own.
func heatShadesShort(edges [3]float64, st *Styles) string {
	unit := func(v float64) (string, string) {
		n, u, _ := strings.Cut(textfmt.MS(v), " ")
		return n, u
	}
	n0, u0 := unit(edges[0])
	n1, u1 := unit(edges[1])
	n2, u2 := unit(edges[2])
	if u0 != u2 || u1 != u2 {
		n0, n1 = textfmt.MS(edges[0]), textfmt.MS(edges[1])
	}
	return st.Shades[0].Render("░") + st.Dim.Render(" <"+n0) + " " +
		st.Shades[1].Render("▒") + st.Dim.Render(" <"+n1) + " " +
		st.Shades[2].Render("▓") + st.Dim.Render(" <"+n2) + " " +
		st.Shades[3].Render("█") + st.Dim.Render(" stall ≥"+n2+" "+u2)
}

func heatLegend(edges [3]float64, byTime bool, per int, span float64, width int, st *Styles) string {
	parts := []string{
		st.Shades[0].Render("░") + st.Dim.Render(" <"+axisLabel(edges[0])),
		st.Shades[1].Render("▒") + st.Dim.Render(" <"+axisLabel(edges[1])),
		st.Shades[2].Render("▓") + st.Dim.Render(" <"+axisLabel(edges[2])),
		st.Shades[3].Render("█") + st.Dim.Render(" stall ≥"+axisLabel(edges[2])),
	}
	cols := []string{fmt.Sprintf("columns: frame index, %d per cell", per), fmt.Sprintf("%d frames/cell", per)}
	if per == 1 {
		cols[1] = "1 frame/cell"
	}
	if byTime {
		cols = []string{"columns: time, 0–" + textfmt.MS(span), "time 0–" + textfmt.MS(span)}
	}
	shades := []string{strings.Join(parts, " "), heatShadesShort(edges, st)}
	for _, sh := range shades {
		for _, c := range cols {
			if line := sh + st.Dim.Render(" · "+c); lipgloss.Width(line) <= width {
				return line
			}
		}
	}
	if lipgloss.Width(shades[0]) <= width {
		return shades[0]
	}
	return shades[1]
}
