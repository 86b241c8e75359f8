package views

import (
	"fmt"
	"math"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/guptarohit/asciigraph"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

func bucketLabel(i int) string {
	switch {
	case i == 0:
		return "<" + textfmt.MS(1)
	case i == len(stats.GapBucketEdges):
		return "≥" + axisLabel(stats.GapBucketEdges[i-1])
	}
	return textfmt.MSRange(stats.GapBucketEdges[i-1], stats.GapBucketEdges[i])
}

// Gaps renders the gap histogram over log-scaled buckets and, below it
// when there is room, a line of gap by frame index (the maximum per column,
// so a stall is never averaged away).
func Gaps(r *record.Record, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	gaps := r.Gaps()
	if len(gaps) == 0 {
		return Note("no gaps yet: they need two content frames", width, height, st)
	}
	counts := make([]int, stats.GapBuckets)
	lo, hi, most := countBuckets(gaps, counts)
	// Contiguous buckets show the log scale's empty stretches. Short of room,
	// only non-empty ones are kept, then the largest gaps, because the stalls
	// must stay visible. The gap line comes when six rows are left for it.
	all, nonEmpty := bucketRange(counts, lo, hi)
	const lineRows = 6
	shown, graphH := all, 0
	switch {
	case height-len(all) >= lineRows:
		graphH = height - len(all)
	case height-len(nonEmpty) >= lineRows:
		shown, graphH = nonEmpty, height-len(nonEmpty)
	case len(all) > height:
		shown = nonEmpty
	}
	lines := barLines(fitRows(shown, counts, lo, hi, most, height), counts, r.StallMS, width, st)
	if graphH > 0 {
		lines = append(lines, gapLine(gaps, r.StallMS, width, graphH, st))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// barLines draws a bar per row, labelled with its range and count, the
// fullest filling the width.
func barLines(rows []span, counts []int, stallMS float64, width int, st *Styles) []string {
	const labelW = 11
	most := 0
	for _, r := range rows {
		most = max(most, r.count(counts))
	}
	countW := len(fmt.Sprint(most)) + 1
	barW := max(1, width-labelW-countW)
	var lines []string
	for _, r := range rows {
		line := st.Label.Render(fmt.Sprintf("%*s ", labelW-1, r.label()))
		if n := r.count(counts); n > 0 {
			bar := strings.Repeat("█", max(1, int(math.Round(float64(n)/float64(most)*float64(barW)))))
			line += r.style(stallMS, st).Render(bar) + " " + st.Value.Render(fmt.Sprint(n))
		}
		lines = append(lines, line)
	}
	return lines
}

// countBuckets counts each value into its bucket (counts holds one per
// bucket, stats.GapBuckets). It returns the first and last non-empty
// buckets and the largest count. lo > hi when vals is empty.
func countBuckets(vals []float64, counts []int) (lo, hi, most int) {
	lo, hi = len(counts), -1
	for _, v := range vals {
		b := stats.GapBucket(v)
		counts[b]++
		lo, hi, most = min(lo, b), max(hi, b), max(most, counts[b])
	}
	return lo, hi, most
}

// bucketRange lists the buckets from lo to hi, and those of them that hold
// a value.
func bucketRange(counts []int, lo, hi int) (all, nonEmpty []int) {
	for b := lo; b <= hi; b++ {
		all = append(all, b)
		if counts[b] > 0 {
			nonEmpty = append(nonEmpty, b)
		}
	}
	return all, nonEmpty
}

// histRows are a histogram's rows, n at most. There is a row for every bucket
// in range where they fit, else for those with samples, then fitRows.
func histRows(counts []int, lo, hi, most, n int) []span {
	all, nonEmpty := bucketRange(counts, lo, hi)
	shown := all
	if len(all) > n {
		shown = nonEmpty
	}
	return fitRows(shown, counts, lo, hi, most, n)
}

// fitRows keeps n of the shown buckets at most (keepModeAndTail) and makes
// them rows, those left out counted in the next row up (rowSpans).
func fitRows(shown, counts []int, lo, hi, most, n int) []span {
	if len(shown) > n {
		shown = keepModeAndTail(shown, counts, most, n)
	}
	return rowSpans(shown, counts, lo, hi)
}

// keepModeAndTail picks n of the buckets. It takes the fullest one, where
// the mass of the gaps is, and then the largest gaps, where the stalls are.
func keepModeAndTail(buckets, counts []int, most, n int) []int {
	mode := -1
	for _, b := range buckets {
		if counts[b] == most {
			mode = b
			break
		}
	}
	tail := buckets[len(buckets)-n:]
	if n < 2 || mode >= tail[0] {
		return tail
	}
	return append([]int{mode}, tail[1:]...)
}

// span is one row of a histogram, the buckets from..to counted together.
type span struct{ from, to int }

// rowSpans are the rows that draw the buckets shown, out of those from lo
// to hi, a row a bucket. A bucket with values that shown leaves out (short
// of rows) is counted in the next row above it. That way every value is on
// some row and the rows' labels say which.
func rowSpans(shown, counts []int, lo, hi int) []span {
	rows := make([]span, len(shown))
	for i, b := range shown {
		rows[i] = span{b, b}
	}
	next := 0
	for b := lo; b <= hi && next < len(rows); b++ {
		switch {
		case b == shown[next]:
			next++
		case counts[b] > 0:
			rows[next].from = min(rows[next].from, b)
		}
	}
	return rows
}

func (s span) count(counts []int) int {
	n := 0
	for b := s.from; b <= s.to; b++ {
		n += counts[b]
	}
	return n
}

func (s span) label() string {
	switch {
	case s.from == s.to:
		return bucketLabel(s.from)
	case s.from == 0:
		return "<" + axisLabel(stats.GapBucketEdges[s.to])
	case s.to == len(stats.GapBucketEdges):
		return "≥" + axisLabel(stats.GapBucketEdges[s.from-1])
	}
	return textfmt.MSRange(stats.GapBucketEdges[s.from-1], stats.GapBucketEdges[s.to])
}

// style colours a row's bar by the stall threshold. A row wholly at or
// above it is stalls, and a row it falls inside may hold some.
func (s span) style(stallMS float64, st *Styles) lipgloss.Style {
	switch {
	case s.from > 0 && stats.GapBucketEdges[s.from-1] >= stallMS:
		return st.StallMid
	case s.to < len(stats.GapBucketEdges) && stats.GapBucketEdges[s.to] > stallMS:
		return st.Stall
	}
	return st.Text
}

// gapLine plots gap by content frame index with asciigraph. It draws one
// column per bucket of frames, each the bucket's largest gap.
func gapLine(gaps []float64, stallMS float64, width, height int, st *Styles) string {
	peak := 0.0
	for _, g := range gaps {
		peak = max(peak, g)
	}
	rows := height - 2
	yLabel := gapAxisFormat(peak, rows)
	labelW := textfmt.AxisLabelWidth(textfmt.AxisRows(peak, rows), yLabel) + 3
	plotW := width - labelW - 1
	if plotW < 2 || height < 3 || len(gaps) < 2 {
		return st.Dim.Render("gap by frame: needs more room or two gaps")
	}
	// Exactly plotW points, each the largest gap of its share of frames.
	// Fewer frames repeat, more are folded, and no stall is averaged away.
	// asciigraph's own resizing interpolates and would shave the peaks.
	n := len(gaps)
	series := make([]float64, plotW)
	for x := range series {
		lo := x * n / plotW
		hi := max(lo+1, (x+1)*n/plotW)
		for _, g := range gaps[lo:hi] {
			series[x] = max(series[x], g)
		}
	}
	per := (n + plotW - 1) / plotW
	opts := []asciigraph.Option{asciigraph.Height(rows), asciigraph.LowerBound(0),
		asciigraph.YAxisValueFormatter(yLabel)}
	if st.Color {
		// asciigraph colours the line itself. An outer style would be reset.
		opts = append(opts, asciigraph.SeriesColors(asciigraph.Green), asciigraph.ColorAbove(asciigraph.Red, stallMS))
	}
	caption := fmt.Sprintf("gap by frame index (1–%d", len(gaps))
	if per > 1 {
		caption += fmt.Sprintf(", max of %d per column", per)
	}
	return asciigraph.Plot(series, opts...) + "\n" + st.Label.Render(caption+")")
}

// gapAxisFormat formats the gap line's y labels as every time is printed
// (textfmt.MS), or with as many decimals as the axis step needs when that
// form would give two rows one label, so the rows of a sub-millisecond plot
// do not all read "0 ms". asciigraph labels rows+1 values evenly from 0 to
// peak, and a step of at least one unit of the last digit keeps
// neighbours apart.
func gapAxisFormat(peak float64, rows int) func(float64) string {
	seen := map[string]bool{}
	for _, v := range textfmt.AxisRows(peak, rows) {
		l := textfmt.MS(v)
		if seen[l] {
			decimals := 0
			if step := peak / float64(max(1, rows)); step > 0 && step < 1 {
				decimals = min(3, int(math.Ceil(-math.Log10(step))))
			}
			return func(v float64) string { return fmt.Sprintf("%.*f ms", decimals, math.Abs(v)) }
		}
		seen[l] = true
	}
	return func(v float64) string { return textfmt.MS(math.Abs(v)) }
}
