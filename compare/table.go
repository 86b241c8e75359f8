package compare

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
)

// Column widths of the wide text table, the one two runs get.
const (
	labelW    = 20 // at least; as wide as the longest label needs, up to maxLabelW
	maxLabelW = 32
	valueW    = 10
	deltaW    = 9
	pctW      = 8
	markW     = 2
)

// layout is the text table's cell widths. A run beyond the baseline is a
// group: two spaces, its value, Δ and Δ% sep apart, a space, its marks.
type layout struct {
	label, value, delta, pct, mark, sep int
}

func (l layout) groupW() int { return 2 + l.value + l.sep + l.delta + l.sep + l.pct + 1 + l.mark }

// perBlock is how many runs beside the baseline fit report.Width, at least one.
func (l layout) perBlock() int { return max(1, (report.Width-l.label-1-l.value)/l.groupW()) }

// tableLayout picks the layout that puts the most runs in one block of
// columns, the first on a tie: the wide one, then as wide as the figures
// need with their columns two apart, then one apart (as sweep's table).
// Past that the runs are split into blocks, each under the baseline.
func tableLayout(c *Comparison) (layout, [][]int) {
	secs := allSections(c)
	need := labelNeed(secs)
	two := tight(secs, need) // the same widths one apart: sep is all that differs
	one := two
	one.sep = 1
	// The wide layout's columns grow where a cell is wider ("-0.0012 ms").
	wide := layout{max(labelW, need), max(valueW, two.value), max(deltaW, two.delta), max(pctW, two.pct), max(markW, two.mark), 1}
	cands := []layout{wide, two, one}
	best := cands[0]
	for _, l := range cands[1:] {
		if min(l.perBlock(), len(c.Runs)-1) > min(best.perBlock(), len(c.Runs)-1) {
			best = l
		}
	}
	var blocks [][]int
	for run := 1; run < len(c.Runs); run++ {
		if (run-1)%best.perBlock() == 0 {
			blocks = append(blocks, nil)
		}
		blocks[len(blocks)-1] = append(blocks[len(blocks)-1], run)
	}
	return best, blocks
}

// allSections are the whole runs' sections and every prompt's, as printed.
func allSections(c *Comparison) []Section {
	secs := slices.Clone(c.Sections)
	for _, p := range c.Prompts {
		secs = append(secs, indent(p.Sections)...)
	}
	return secs
}

// labelNeed is the label column's width the longest title or row label
// needs ("failed timeout_total" was cut to "failed timeout_to…"), up to
// maxLabelW.
func labelNeed(secs []Section) int {
	lw := 0
	for _, sec := range secs {
		lw = max(lw, ansi.StringWidth(sec.Title)+1)
		for _, r := range sec.Rows {
			lw = max(lw, ansi.StringWidth("  "+sanitize.Line(r.Label))+1)
		}
	}
	return min(lw, maxLabelW)
}

// tight is the layout as wide as the figures and headings need, its
// columns two apart.
func tight(secs []Section, label int) layout {
	l := layout{label: label, value: len("value"), delta: 1, pct: 2, sep: 2}
	for _, sec := range secs {
		for _, n := range sec.N {
			l.value = max(l.value, len(fmt.Sprint("n=", n)))
		}
		for _, r := range sec.Rows {
			for i, v := range r.Values {
				l.value = max(l.value, ansi.StringWidth(FormatValue(r, v)))
				if d := r.Deltas[i]; d != nil {
					l.delta = max(l.delta, ansi.StringWidth(FormatDeltaAbs(r, d)))
					l.pct = max(l.pct, ansi.StringWidth(FormatDeltaPct(d)))
					l.mark = max(l.mark, len(Marks(d)))
				}
			}
		}
	}
	return l
}

// writeTable writes the column headings and body of each block of runs.
func writeTable(w io.Writer, c *Comparison, l layout, blocks [][]int, body func(runs []int)) {
	for i, runs := range blocks {
		if i > 0 {
			fmt.Fprintln(w)
		}
		writeHeader(w, c, l, runs)
		body(runs)
	}
}

func writeHeader(w io.Writer, c *Comparison, l layout, runs []int) {
	var top, sub strings.Builder
	// The baseline's name may reach into the empty label column.
	top.WriteString(textfmt.FitRight(Letter(0)+" "+sanitize.Line(c.Runs[0].Label), l.label+1+l.value))
	sub.WriteString(strings.Repeat(" ", l.label+1) + textfmt.PadLeft("value", l.value))
	sep := strings.Repeat(" ", l.sep)
	for _, i := range runs {
		top.WriteString("  " + textfmt.FitLeft(Letter(i)+" "+sanitize.Line(c.Runs[i].Label), l.groupW()-2))
		sub.WriteString("  " + textfmt.PadLeft("value", l.value) + sep + textfmt.PadLeft("Δ", l.delta) + sep + textfmt.PadLeft("Δ%", l.pct) + strings.Repeat(" ", 1+l.mark))
	}
	fmt.Fprintln(w, strings.TrimRight(top.String(), " "))
	fmt.Fprintln(w, strings.TrimRight(sub.String(), " "))
}

func writeSections(w io.Writer, secs []Section, l layout, runs []int) {
	for _, sec := range secs {
		var b strings.Builder
		b.WriteString(textfmt.FitLeft(sec.Title, l.label))
		if sec.N != nil {
			b.WriteString(" " + textfmt.PadLeft(fmt.Sprintf("n=%d", sec.N[0]), l.value))
			for _, i := range runs {
				b.WriteString("  " + textfmt.PadLeft(fmt.Sprintf("n=%d", sec.N[i]), l.value) + strings.Repeat(" ", l.groupW()-2-l.value))
			}
		}
		fmt.Fprintln(w, strings.TrimRight(b.String(), " "))
		for _, r := range sec.Rows {
			fmt.Fprintln(w, strings.TrimRight(rowLine(r, l, runs), " "))
		}
	}
}

func rowLine(r Row, l layout, runs []int) string {
	var b strings.Builder
	b.WriteString(textfmt.FitLeft("  "+sanitize.Line(r.Label), l.label) + " " + textfmt.PadLeft(FormatValue(r, r.Values[0]), l.value))
	sep := strings.Repeat(" ", l.sep)
	for _, i := range runs {
		d := r.Deltas[i]
		b.WriteString("  " + textfmt.PadLeft(FormatValue(r, r.Values[i]), l.value) + sep + textfmt.PadLeft(FormatDeltaAbs(r, d), l.delta) +
			sep + textfmt.PadLeft(FormatDeltaPct(d), l.pct) + " " + textfmt.FitLeft(Marks(d), l.mark))
	}
	return b.String()
}
