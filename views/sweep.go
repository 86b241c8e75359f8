package views

import (
	"math"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"
	"github.com/guptarohit/asciigraph"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/sweep"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// SweepPanel is a sweep's per-level table — a row per level that finished,
// the level in progress and those still to come dimmed, the knee marked —
// its verdict, and, where the rows allow, the plots by level below it (or
// beside it on a wide screen).
func SweepPanel(r *sweep.Result, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	rows := sweepRows(r, width, st)
	tw := 0
	for _, l := range rows {
		tw = max(tw, ansi.StringWidth(l))
	}
	verdict := sweepVerdict(r, width, st)
	pts := SweepPointsOf(r.Levels)
	table := strings.Join(rows, "\n")
	switch beside := height - len(verdict); {
	case width-tw-2 >= 3*sweepPlotMinW && beside >= 8:
		top := besideAt(textfmt.Fit(table, tw, beside), SweepPlots(pts, r.Kind, width-tw-2, beside, st), tw+2, beside)
		table = strings.Join(append([]string{top}, verdict...), "\n")
	case height-len(rows)-len(verdict) >= 8:
		table = strings.Join(append(rows, verdict...), "\n") + "\n" +
			SweepPlots(pts, r.Kind, width, height-len(rows)-len(verdict), st)
	default:
		table = strings.Join(append(rows, verdict...), "\n")
	}
	return textfmt.Fit(table, width, height)
}

// sweepRows are the table's lines: the header and a row per level.
func sweepRows(r *sweep.Result, width int, st *Styles) []string {
	cols, rows, marks := sweep.Cells(r)
	cols, rows = narrowTo(cols, rows, width)
	titles := sweepTitles(cols)
	widths := sweep.ColumnWidths(append([][]string{titles}, rows...))
	line := func(cells []string) string {
		parts := make([]string, len(cells))
		for j, c := range cells {
			parts[j] = textfmt.PadLeft(c, widths[j])
		}
		return strings.Join(parts, "  ")
	}
	out := []string{st.Label.Render(line(titles))}
	for i, row := range rows {
		s := line(row)
		switch marks[i] {
		case "◀ knee":
			s = st.Value.Render(s) + "  " + st.Failed.Render(marks[i])
		case "":
		default:
			s += "  " + st.Dim.Render(marks[i])
		}
		out = append(out, s)
	}
	for i := len(r.Levels); i < len(r.Planned); i++ {
		lv := r.Planned[i]
		note := "to come"
		if r.Running != nil && *r.Running == lv {
			note = st.Live.Render("running…")
		} else if r.Stopped != nil {
			note = "not run"
		}
		out = append(out, st.Dim.Render(textfmt.PadLeft(sweep.LevelNum(lv), widths[0])+"  ")+st.Dim.Render(note))
	}
	return out
}

// sweepVerdict is the knee's verdict and why the sweep stopped, wrapped.
func sweepVerdict(r *sweep.Result, width int, st *Styles) []string {
	var out []string
	if len(r.Levels) > 0 {
		out = append(out, wrapLine(sweep.Verdict(r), width, st.Value)...)
	}
	if r.Stopped != nil {
		out = append(out, wrapLine("stopped: "+*r.Stopped, width, st.Failed)...)
	}
	return out
}

// sweepDroppable are the columns a narrow panel leaves out, first first:
// ttft p95, gap p99 and throughput are what the knee reads.
var sweepDroppable = []string{"itl p50", "stalls/str", "ttft p50", "streams", "failed"}

// SweepLeftOut names the columns SweepPanel's table leaves out at width,
// for the panel's title to say (drip run --no-tui prints them all).
func SweepLeftOut(r *sweep.Result, width int) []string {
	cols, rows, _ := sweep.Cells(r)
	kept, _ := narrowTo(cols, rows, width)
	var out []string
	for _, c := range cols {
		if !slices.ContainsFunc(kept, func(k sweep.Column) bool { return k.Title == c.Title }) {
			out = append(out, c.Title)
		}
	}
	return out
}

// narrowTo drops columns until the table (and its knee mark) fits width.
func narrowTo(cols []sweep.Column, rows [][]string, width int) ([]sweep.Column, [][]string) {
	for _, name := range sweepDroppable {
		total := len("  ◀ knee")
		for _, w := range sweep.ColumnWidths(append([][]string{sweepTitles(cols)}, rows...)) {
			total += w + 2
		}
		if total-2 <= width {
			break
		}
		j := slices.IndexFunc(cols, func(c sweep.Column) bool { return c.Title == name })
		if j < 0 {
			continue
		}
		cols = slices.Delete(slices.Clone(cols), j, j+1)
		for i := range rows {
			rows[i] = slices.Delete(slices.Clone(rows[i]), j, j+1)
		}
	}
	return cols, rows
}

// sweepTitles are the columns' titles, the table's first row.
func sweepTitles(cols []sweep.Column) []string {
	titles := make([]string, len(cols))
	for j, c := range cols {
		titles[j] = c.Title
	}
	return titles
}

// wrapLine cuts a long verdict into lines of the panel's width.
func wrapLine(s string, width int, style interface{ Render(...string) string }) []string {
	var out []string
	for _, l := range textfmt.Wrap(sanitize.Line(s), max(width, 20)) {
		out = append(out, style.Render(l))
	}
	return out
}

// SweepPoint is one level on the sweep plots; nil where undefined.
type SweepPoint struct {
	Label                       string
	Throughput, TTFTP95, GapP99 *float64
}

// SweepPointsOf are the plots' points of levels.
func SweepPointsOf(levels []sweep.Level) []SweepPoint {
	out := make([]SweepPoint, len(levels))
	for i := range levels {
		l := &levels[i]
		out[i] = SweepPoint{Label: sweep.LevelNum(l.Level), Throughput: l.Throughput.TokensPerS, TTFTP95: stats.TTFT.Of(l.Metrics).P95, GapP99: stats.Gap.Of(l.Metrics).P99}
	}
	return out
}

// sweepPlotMinW is the narrowest plot worth drawing.
const sweepPlotMinW = 24

// SweepPlots draws throughput, TTFT p95 and gap p99 by level, side by side
// as the width allows (stacked otherwise): where throughput flattens while
// the latencies climb is the knee. Each plot waits for two levels.
func SweepPlots(pts []SweepPoint, kind string, width, height int, st *Styles) string {
	plots := []struct {
		title string
		get   func(*SweepPoint) *float64
	}{
		{"tok/s", func(p *SweepPoint) *float64 { return p.Throughput }},
		{"ttft p95 ms", func(p *SweepPoint) *float64 { return p.TTFTP95 }},
		{"gap p99 ms", func(p *SweepPoint) *float64 { return p.GapP99 }},
	}
	n := min(len(plots), max(1, (width+2)/(sweepPlotMinW+2)))
	w := (width - 2*(n-1)) / n
	var cells []string
	for i, p := range plots[:n] {
		cells = append(cells, sweepPlot(pts, p.get, p.title+" by "+kind, i, w, height, st))
	}
	out := cells[0]
	for i, c := range cells[1:] {
		out = besideAt(out, c, (i+1)*(w+2), height)
	}
	return textfmt.Fit(out, width, height)
}

// sweepPlot is one plot: the figure over the levels, labelled below.
func sweepPlot(pts []SweepPoint, get func(*SweepPoint) *float64, title string, i, width, height int, st *Styles) string {
	series := make([]float64, len(pts))
	defined := 0
	for j := range pts {
		series[j] = math.NaN()
		if v := get(&pts[j]); v != nil {
			series[j] = *v
			defined++
		}
	}
	if defined < 2 || height < 5 {
		return textfmt.Fit(st.Label.Render(title)+"\n"+st.Dim.Render("two levels make a line"), width, height)
	}
	labels := make([]string, len(pts))
	for j := range pts {
		labels[j] = pts[j].Label
	}
	// The label column is about 7 wide; the plot area takes the rest, cut
	// so every level falls on a column (asciigraph interpolates between
	// them, and a level between columns would lose its peak).
	pw := max(8, width-8)
	if n := len(pts) - 1; n > 0 && pw > n {
		pw = (pw-1)/n*n + 1
	}
	opts := []asciigraph.Option{
		asciigraph.Height(max(2, height-4)), asciigraph.Width(pw), asciigraph.LowerBound(0),
		asciigraph.XAxisRange(0, float64(len(pts)-1)), asciigraph.XAxisTickCount(len(pts)),
		asciigraph.XAxisValueFormatter(func(v float64) string { return labels[min(len(labels)-1, max(0, int(math.Round(v))))] }),
		asciigraph.YAxisValueFormatter(func(v float64) string {
			if math.Abs(v) < 1e-9 {
				v = 0
			}
			return textfmt.FormatFloat(v)
		}),
	}
	if st.Color {
		opts = append(opts, asciigraph.SeriesColors([]asciigraph.AnsiColor{asciigraph.Green, asciigraph.Yellow, asciigraph.Red}[i%3]))
	}
	return textfmt.Fit(asciigraph.Plot(series, opts...)+"\n"+st.Label.Render(title), width, height)
}

// besideAt puts right beside left, which is padded to col columns.
func besideAt(left, right string, col, height int) string {
	l, r := strings.Split(left, "\n"), strings.Split(right, "\n")
	out := make([]string, max(len(l), len(r)))
	for i := range out {
		a, b := "", ""
		if i < len(l) {
			a = l[i]
		}
		if i < len(r) {
			b = r[i]
		}
		out[i] = a + strings.Repeat(" ", max(0, col-ansi.StringWidth(a))) + b
	}
	if len(out) > height {
		out = out[:height]
	}
	return strings.Join(out, "\n")
}
