package sweep

import (
	"fmt"
	"io"
	"math"
	"strings"

	"github.com/guptarohit/asciigraph"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// Point is one level on the sweep plots. A figure is nil where undefined.
type Point struct {
	Label                       string
	Throughput, TTFTP95, GapP99 *float64
}

// PointsOf are the plots' points of levels.
func PointsOf(levels []Level) []Point {
	out := make([]Point, len(levels))
	for i := range levels {
		l := &levels[i]
		out[i] = Point{Label: LevelNum(l.Level), Throughput: l.Throughput.TokensPerS, TTFTP95: stats.TTFT.Of(l.Metrics).P95, GapP99: stats.Gap.Of(l.Metrics).P99}
	}
	return out
}

// Ink is how the plots style their words. A screen passes its styles
// (views), and the text report passes plain ones (TextPlots).
type Ink struct {
	Label, Dim func(...string) string
	Color      bool // the series may be coloured
}

// PlotMinW is the narrowest plot worth drawing.
const PlotMinW = 24

// Plots draws throughput, TTFT p95 and gap p99 by level, side by side
// as the width allows (stacked otherwise). Where throughput flattens while
// the latencies climb is the knee. Each plot waits for two levels.
func Plots(pts []Point, kind string, width, height int, ink Ink) string {
	plots := []struct {
		title string
		get   func(*Point) *float64
		form  func(float64) string // a y label, as the figure is printed
	}{
		{"tok/s", func(p *Point) *float64 { return p.Throughput }, textfmt.FormatFloat},
		{"ttft p95", func(p *Point) *float64 { return p.TTFTP95 }, textfmt.MS},
		{"gap p99", func(p *Point) *float64 { return p.GapP99 }, textfmt.MS},
	}
	n := min(len(plots), max(1, (width+2)/(PlotMinW+2)))
	w := (width - 2*(n-1)) / n
	var cells []string
	for i, p := range plots[:n] {
		cells = append(cells, plot(pts, p.get, p.form, p.title+" by "+kind, i, w, height, ink))
	}
	out := cells[0]
	for i, c := range cells[1:] {
		out = textfmt.Beside(out, c, (i+1)*(w+2), height)
	}
	return textfmt.Fit(out, width, height)
}

// plot is one plot of the figure over the levels, labelled below.
func plot(pts []Point, get func(*Point) *float64, form func(float64) string, title string, i, width, height int, ink Ink) string {
	series := make([]float64, len(pts))
	defined, peak := 0, 0.0
	for j := range pts {
		series[j] = math.NaN()
		if v := get(&pts[j]); v != nil {
			series[j] = *v
			peak = max(peak, *v)
			defined++
		}
	}
	if defined < 2 || height < 5 {
		return textfmt.Fit(ink.Label(title)+"\n"+ink.Dim("two levels make a line"), width, height)
	}
	labels := make([]string, len(pts))
	for j := range pts {
		labels[j] = pts[j].Label
	}
	yLabel := func(v float64) string {
		if math.Abs(v) < 1e-9 {
			v = 0
		}
		return form(v)
	}
	// The label column is as wide as the widest of the rows' labels, which
	// asciigraph spaces evenly from 0 to the peak, and " ┤". The plot area
	// takes the rest, cut so every level falls on a column (asciigraph
	// interpolates between them, and a level between columns would lose
	// its peak).
	rows := max(2, height-4)
	pw := max(8, width-textfmt.AxisLabelWidth(textfmt.AxisRows(peak, rows), yLabel)-3)
	if n := len(pts) - 1; n > 0 && pw > n {
		pw = (pw-1)/n*n + 1
	}
	opts := []asciigraph.Option{
		asciigraph.Height(rows), asciigraph.Width(pw), asciigraph.LowerBound(0),
		asciigraph.XAxisRange(0, float64(len(pts)-1)), asciigraph.XAxisTickCount(len(pts)),
		asciigraph.XAxisValueFormatter(func(v float64) string { return labels[min(len(labels)-1, max(0, int(math.Round(v))))] }),
		asciigraph.YAxisValueFormatter(yLabel),
	}
	if ink.Color {
		opts = append(opts, asciigraph.SeriesColors([]asciigraph.AnsiColor{asciigraph.Green, asciigraph.Yellow, asciigraph.Red}[i%3]))
	}
	return textfmt.Fit(asciigraph.Plot(series, opts...)+"\n"+ink.Label(title), width, height)
}

// textInk is the text report's ink. It writes plain text with no escape
// sequence, since the report goes to files and pipes as often as to a terminal.
var textInk = Ink{Label: plainInk, Dim: plainInk}

func plainInk(s ...string) string { return strings.Join(s, " ") }

// TextPlots writes the plots by level under a text report's sweep table,
// within its 80 columns, lines without trailing spaces.
func TextPlots(w io.Writer, r *Result) {
	kind := r.Kind // named as the table's head, so "ttft p95 by …" fits a third of 80 columns
	if kind == KindConcurrency {
		kind = "conc"
	}
	plots := Plots(PointsOf(r.Levels), kind, report.Width, 11, textInk)
	for l := range strings.Lines(plots) {
		fmt.Fprintln(w, strings.TrimRight(l, " \n"))
	}
}
