package views

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// ScatterPoint is one run (watch), stream (run screen) or run file
// (compare) on the scatter, with its series and its two figures. The
// series is a target or file, drawn as its letter. A series of -1 means
// there is one series, drawn as •.
type ScatterPoint struct {
	Series        int
	TTFTMS, GapMS float64 // TTFT and gap p99
}

// PointOf is a record's point, or false when it has no TTFT or fewer than
// two gaps (a point with an undefined figure is not drawn at 0).
func PointOf(series int, r *record.Record) (ScatterPoint, bool) {
	gaps := r.Gaps()
	if r.TTFTMS == nil || len(gaps) == 0 {
		return ScatterPoint{}, false
	}
	sorted := append([]float64(nil), gaps...)
	slices.Sort(sorted)
	return ScatterPoint{Series: series, TTFTMS: *r.TTFTMS, GapMS: stats.Percentile(sorted, 99)}, true
}

// Scatter plots TTFT (x) against gap p99 (y). With letters, each point is
// drawn as the letter of its series, a target or a run file. Without them
// there is one series, drawn as •. A cell holding several points draws their
// number, or "*" where series meet, as the caption says. The stall
// threshold is a line. The quadrants are labelled with the shapes they
// suggest, split where drip's diagnosis splits them. TTFT splits at
// probe.QueueTTFTMS and gaps split at the stall threshold. Undrawable points
// are counted in the caption.
func Scatter(pts []ScatterPoint, letters bool, skipped int, stallMS float64, width, height int, st *Styles) string {
	const yLabelW = 8
	plotW := width - yLabelW
	var p *scatterPlot
	var caption []string
	// The caption takes the rows what it must say (the points not drawn,
	// what the counts mean) needs, and the plot the rest.
	for rows := 1; ; rows++ {
		plotH := height - 1 - rows // the axis row and the caption
		if plotW < 10 || plotH < 3 {
			if p == nil {
				return textfmt.Fit(st.Dim.Render("too small for the scatter"), width, height)
			}
			caption = append(caption[:rows-2], "(the key does not fit: widen)")
			break
		}
		p = newScatterPlot(pts, letters, stallMS, plotW, plotH)
		p.drawGuides(stallMS, st)
		p.drawPoints(pts, st)
		p.labelQuadrants(st)
		caption = p.caption(len(pts), letters, skipped, plotW, rows)
		if len(caption) <= rows {
			break
		}
	}
	lines := make([]string, 0, height)
	for r := range p.grid {
		label := ""
		switch r {
		case 0:
			label = textfmt.MS(p.yMax)
		case p.stallRow:
			label = textfmt.MS(stallMS)
		case p.h - 1:
			label = "0"
		}
		lines = append(lines, st.Label.Render(fmt.Sprintf("%*s ", yLabelW-1, label))+p.grid[r].String())
	}
	ax := axis{to: p.xMax, cells: plotW}
	lines = append(lines, strings.Repeat(" ", yLabelW)+axisRow(ax, st).String())
	for _, c := range caption {
		lines = append(lines, strings.Repeat(" ", yLabelW)+st.Dim.Render(c))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// caption is the scatter's key in rows of width cells, broken between its
// parts. A part wider than a row breaks at its words. The axes, what is
// missing and what the counts mean come first. The quadrants' key fills the
// last row as far as its parts fit whole. More rows than asked for say the
// first parts need them.
func (p *scatterPlot) caption(points int, letters bool, skipped, width, rows int) []string {
	parts := []string{"x ttft", "y gap p99"}
	if skipped > 0 {
		parts = append(parts, fmt.Sprintf("%d without a ttft or gaps, not drawn", skipped))
	}
	parts = append(parts, p.heldCaption(points, letters)...)
	var pieces []string
	for _, part := range parts {
		pieces = append(pieces, textfmt.Wrap(part, width)...)
	}
	lines := textfmt.Lines(pieces, " · ", width, "", "")
	if len(lines) > rows {
		return lines
	}
	last := &lines[len(lines)-1]
	for _, q := range []string{"transport: fast start, fat gaps", "queue: long wait, tight gaps"} {
		if textfmt.Width(*last+" · "+q) > width {
			break
		}
		*last += " · " + q
	}
	return lines
}

// scatterPlot is the scatter's drawing area. It holds a row of cells per line, the
// scales that place a figure in them, and where the guides cross.
type scatterPlot struct {
	grid               []cellRow
	cells              map[[2]int]*heldCell // by row and column
	counts             map[[2]int]bool      // cells holding the count of the cell before them
	example            *heldCell            // the first cell of one series holding 2–9 points
	plus               bool                 // a cell holds 10 or more
	plusCell           *heldCell            // the first cell of one series holding 10 or more
	met                *heldCell            // the first cell where series meet
	slot               int                  // cells a point takes (2 with letters, to fit the count after the letter)
	w, h               int
	xMax, yMax         float64
	queueCol, stallRow int
}

// newScatterPlot scales both axes to hold every point and the guides.
// With letters a point takes two cells, its letter on an even one and,
// when the cell holds several, their count on the odd one after it, so a
// digit always belongs to the letter before it ("B3", never "B3B").
func newScatterPlot(pts []ScatterPoint, letters bool, stallMS float64, w, h int) *scatterPlot {
	p := &scatterPlot{w: w, h: h, slot: 1, xMax: 1.25 * stats.QueueTTFTMS, yMax: 1.5 * stallMS, cells: map[[2]int]*heldCell{}, counts: map[[2]int]bool{}}
	for _, pt := range pts {
		p.xMax, p.yMax = max(p.xMax, pt.TTFTMS*1.1), max(p.yMax, pt.GapMS*1.1)
	}
	p.xMax, p.yMax = niceCeil(p.xMax), niceCeil(p.yMax)
	if letters {
		p.slot = 2
	}
	p.grid = make([]cellRow, h)
	for i := range p.grid {
		p.grid[i] = newCellRow(w, ' ', nil)
	}
	p.queueCol, p.stallRow = p.col(stats.QueueTTFTMS), p.row(stallMS)
	return p
}

// col is the cell of x on the axis.
func (p *scatterPlot) col(x float64) int { return min(p.w-1, int(x/p.xMax*float64(p.w))) }

// pointCol is the cell of a point's letter. That is x's cell, or with two
// cells a point, the even one at or before it.
func (p *scatterPlot) pointCol(x float64) int {
	c := p.col(x)
	return min(p.w-p.slot, c-c%p.slot)
}

func (p *scatterPlot) row(y float64) int {
	return p.h - 1 - min(p.h-1, int(y/p.yMax*float64(p.h)))
}

// free reports which cells of row r a label may take, the blank ones and the stall line's.
func (p *scatterPlot) free(r int) func(int) bool {
	return func(i int) bool { return p.grid[r].r[i] == ' ' || p.grid[r].r[i] == '┄' }
}

// drawGuides draws the queue split (TTFT) and the stall line (gaps).
func (p *scatterPlot) drawGuides(stallMS float64, st *Styles) {
	qx, sy := p.queueCol, p.stallRow
	for r := range p.grid {
		p.grid[r].set(qx, '┆', &st.Dim)
	}
	for c := range p.w {
		p.grid[sy].set(c, '┄', &st.Stall)
	}
	label := "stall " + textfmt.MS(stallMS)
	p.grid[sy].put(max(0, qx-len(label)-1), label, &st.Stall, p.free(sy))
}

// drawPoints draws each point as its series' letter, "*" where series
// meet. A cell holding several points says how many, 2 to 9 or "+" for
// 10 or more. That way a title promising a point per run or stream still
// holds when runs alike land on one cell. With one series (•) the count is
// the cell's mark. With letters it follows the mark in its colour ("B3"),
// so the target is read without colour too.
func (p *scatterPlot) drawPoints(pts []ScatterPoint, st *Styles) {
	var order [][2]int // cells in the order their first point came
	for _, pt := range pts {
		at := [2]int{p.row(pt.GapMS), p.pointCol(pt.TTFTMS)}
		cell := p.cells[at]
		if cell == nil {
			cell = &heldCell{series: pt.Series}
			p.cells[at] = cell
			order = append(order, at)
		}
		cell.n++
		if !slices.Contains(cell.all, pt.Series) {
			cell.all = append(cell.all, pt.Series)
		}
	}
	styles := seriesStyles(st)
	for _, at := range order {
		cell, r, c := p.cells[at], at[0], at[1]
		mark, style := heldGlyph(cell.n), &st.Value
		switch {
		case cell.mixed():
			mark = '*'
			if p.met == nil {
				p.met = cell
			}
		case cell.series >= 0:
			mark, style = []rune(compare.Letter(cell.series))[0], styles[cell.series%len(styles)]
		}
		p.grid[r].set(c, mark, style)
		if cell.n == 1 {
			continue
		}
		p.plus = p.plus || cell.n > 9
		switch {
		case cell.mixed():
		case cell.n <= 9 && p.example == nil:
			p.example = cell
		case cell.n > 9 && p.plusCell == nil:
			p.plusCell = cell
		}
		if p.slot == 2 {
			p.grid[r].set(c+1, heldGlyph(cell.n), style)
			p.counts[[2]int{r, c + 1}] = true
		}
	}
}

// heldCaption says, in parts, how many points stand in how many cells
// and what "*" and the counts mean, when a cell holds more than one
// point. "*" goes first, as it reads least by itself. The example of a
// count is the plot's own first, such as "B3" for 3 of B in one cell.
func (p *scatterPlot) heldCaption(points int, letters bool) []string {
	var key []string
	if m := p.met; m != nil {
		var names []string
		for _, sr := range slices.Sorted(slices.Values(m.all)) {
			names = append(names, compare.Letter(sr))
		}
		key = append(key, fmt.Sprintf("*%c: %s in one cell", heldGlyph(m.n), strings.Join(names, ", ")))
	}
	ex := p.example
	switch {
	case !letters && (ex != nil || p.plus):
		key = append(key, "2–9: that many, + 10 or more")
	case !letters:
	case ex != nil:
		l := compare.Letter(ex.series)
		key = append(key, fmt.Sprintf("%s%c: %d of %s in one cell", l, heldGlyph(ex.n), ex.n, l))
	}
	switch pc := p.plusCell; {
	case !letters || !p.plus:
	case pc != nil:
		l := compare.Letter(pc.series)
		key = append(key, fmt.Sprintf("%s+: 10 or more of %s in one cell", l, l))
	default: // only where letters meet, as "*+"
		key = append(key, "+: 10 or more")
	}
	if key == nil {
		return nil
	}
	return append([]string{fmt.Sprintf("%s in %s", stats.Count(points, "point"), stats.Count(len(p.cells), "cell"))}, key...)
}

// heldCell is what one cell of the plot holds. It counts the points and
// keeps their series, the first and, where series meet, all of them.
type heldCell struct {
	n, series int
	all       []int // every series it holds
}

// mixed reports whether series meet in the cell.
func (c *heldCell) mixed() bool { return len(c.all) > 1 }

// heldGlyph is the mark of n points of one series in a cell.
func heldGlyph(n int) rune {
	switch {
	case n == 1:
		return '•'
	case n <= 9:
		return rune('0' + n)
	default:
		return '+'
	}
}

// labelQuadrants names the quadrants in their corners. A label moves a row
// inward when a point is in the way or beside it, since a label that
// touches a point reads as one word ("healthyB"). Points are never covered.
func (p *scatterPlot) labelQuadrants(st *Styles) {
	qx := p.queueCol
	quad := []struct {
		r, step, c int
		text       string
	}{
		{0, 1, 1, "transport"}, {0, 1, qx + 2, "both"},
		{p.h - 1, -1, 1, "healthy"}, {p.h - 1, -1, qx + 2, "queue"},
	}
	for _, q := range quad {
		for r := q.r; r >= 0 && r < p.h && r != p.stallRow; r += q.step {
			if !p.pointAt(r, q.c-1) && !p.pointAt(r, q.c+len(q.text)) && p.grid[r].put(q.c, q.text, &st.Dim, p.free(r)) {
				break
			}
		}
	}
}

// pointAt reports whether cell c of row r holds a point or a point's
// count. A cell off the plot holds none.
func (p *scatterPlot) pointAt(r, c int) bool {
	return p.cells[[2]int{r, c}] != nil || p.counts[[2]int{r, c}]
}

// niceCeil rounds v up to a 1-2-5 step.
func niceCeil(v float64) float64 {
	step := niceStep(v / 5)
	return math.Ceil(v/step) * step
}

// seriesStyles tell series apart by colour as well as by letter.
func seriesStyles(st *Styles) []*lipgloss.Style {
	return []*lipgloss.Style{&st.Tool, &st.Burst, &st.Reasoning, &st.Text, &st.Meta}
}

// Trend is one series of the trend strip, a target's figure by run index.
type Trend struct {
	Series int        // the target's letter, or -1 for none (one series, or across runs)
	Label  string     // "ttft", "gap p99"
	Values []*float64 // by run index, nil where undefined
}

// minSpan is the least range of a trend row, as a share of its largest value.
const minSpan = 0.2

// TrendStrip draws each trend as a row of braille bars, one cell per run.
// The oldest run is on the left, and the newest runs are kept when there
// are more than fit. Each row is scaled to its own range, at least minSpan
// of its top, so a run out of line with the others shows at a glance. Each
// row ends with its range. An undefined value is a gap. unit names what the
// index counts ("runs").
func TrendStrip(trends []Trend, unit string, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	const labelW = 12
	// Each row's tail (its range and the runs it covers) gets the room it
	// needs, since " 181ms–182ms streams 1–3" does not fit a fixed 22 cells.
	tailW := 22
	for range 2 {
		cells := width - labelW - tailW
		if cells < 3 {
			return textfmt.Fit(st.Dim.Render("too narrow for the trend"), width, height)
		}
		var lines []string
		need := 0
		for _, t := range trends {
			label, bars, tail, style := trendRow(t, unit, cells, st)
			need = max(need, textfmt.Width(tail))
			lines = append(lines, st.Label.Render(textfmt.PadRight(label, labelW))+style.Render(textfmt.PadRight(bars, cells))+st.Dim.Render(tail))
		}
		if need <= tailW {
			return textfmt.Fit(strings.Join(lines, "\n"), width, height)
		}
		tailW = need
	}
	return textfmt.Fit(st.Dim.Render("too narrow for the trend"), width, height)
}

// trendRow is a trend's label, its bars over the latest cells values, the
// tail that ends its row, and the series' style.
func trendRow(t Trend, unit string, cells int, st *Styles) (label, bars, tail string, style *lipgloss.Style) {
	vals := t.Values
	first := 0
	if len(vals) > cells {
		first = len(vals) - cells
		vals = vals[first:]
	}
	lo, hi := math.Inf(1), math.Inf(-1)
	for _, v := range vals {
		if v != nil {
			lo, hi = min(lo, *v), max(hi, *v)
		}
	}
	// The row's own range is at least minSpan of its top. A run out of
	// line stands out, and noise of a few percent stays flat.
	base := min(lo, hi*(1-minSpan))
	var b strings.Builder
	for _, v := range vals {
		if v == nil {
			b.WriteRune(' ')
			continue
		}
		b.WriteRune(brailleBar(*v-base, hi-base))
	}
	rng := "—"
	if hi >= lo { // else no defined value
		rng = textfmt.MSRange(lo, hi) // one figure when the runs print alike
	}
	label, style = sanitize.Line(t.Label), &st.Value
	if t.Series >= 0 {
		styles := seriesStyles(st)
		label, style = compare.Letter(t.Series)+" "+label, styles[t.Series%len(styles)]
	}
	runs := fmt.Sprintf(" %s %d–%d", unit, first+1, first+len(vals))
	if len(vals) == 1 {
		runs = fmt.Sprintf(" %s %d", strings.TrimSuffix(unit, "s"), first+1)
	}
	return label, b.String(), " " + rng + runs, style
}

// brailleBar is a braille cell filled from the bottom to v's share of top
// (both dot columns, 4 levels, never empty for a defined value).
func brailleBar(v, top float64) rune {
	// Dots fill from the bottom row up, 7+8 first, then 3+6, 2+5 and 1+4.
	levels := [...]rune{0x28C0, 0x28E4, 0x28F6, 0x28FF}
	if top <= 0 {
		return levels[0]
	}
	i := int(math.Ceil(v/top*4)) - 1
	return levels[max(0, min(3, i))]
}
