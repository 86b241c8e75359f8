package views

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// CompareHeader renders the title of a comparison, one line per run, and
// the workload banner when the runs differ in anything besides the system
// under test, in at most height lines. A banner cut short says how many
// differences it left out.
func CompareHeader(c *compare.Comparison, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	lines := []string{st.Title.Render("drip compare") + st.Dim.Render(fmt.Sprintf(" · %d runs · baseline A", len(c.Runs)))}
	for i := range c.Runs {
		lines = append(lines, runLine(c, i, width, st))
	}
	if len(c.Workload) > 0 {
		why := ": a difference below may come from the workload, not the system"
		if textfmt.Width("⚠ workload differs"+why) > width {
			why = ": a difference may come from it, not the system" // whole at 80 columns
		}
		lines = append(lines, st.Live.Render("⚠ workload differs")+st.Dim.Render(why))
		room := height - len(lines)
		for i, d := range c.Workload {
			if left := len(c.Workload) - i; left > 1 && room == 1 {
				lines = append(lines, st.Live.Render(fmt.Sprintf("  … %d more differences: drip compare --no-tui lists them", left)))
				break
			}
			lines = append(lines, differenceLine(d, width, st))
			room--
		}
	}
	if len(lines) > height {
		lines = lines[:height]
	}
	for i, l := range lines {
		lines[i] = ansi.Truncate(l, width, "…")
	}
	return strings.Join(lines, "\n")
}

// differenceLine is a setting that differs, with the runs grouped by value
// ("A, B http://h:1/v1/chat · C http://h:2/v1/chat"). Each value is cut in
// its middle to a share of width when they do not fit whole. Cut at its
// end, a value would lose the one target that differed.
func differenceLine(d compare.Difference, width int, st *Styles) string {
	var values []string
	runs := map[string][]string{}
	for j, v := range d.Values {
		v = sanitize.Line(v)
		if runs[v] == nil {
			values = append(values, v)
		}
		runs[v] = append(runs[v], compare.Letter(j))
	}
	fixed, whole := textfmt.Width("  "+d.Setting+": ")+3*(len(values)-1), 0 // the name and the separators
	for _, v := range values {
		fixed += textfmt.Width(strings.Join(runs[v], ", ")) + 1
		whole += textfmt.Width(v)
	}
	parts := make([]string, len(values))
	for i, v := range values {
		shown := v
		if fixed+whole > width {
			shown = ElideURLs(v, max((width-fixed)/len(values), 8))
		}
		parts[i] = st.Value.Render(strings.Join(runs[v], ", ")) + " " + shown
	}
	return "  " + st.Live.Render(d.Setting) + st.Dim.Render(": ") + strings.Join(parts, st.Dim.Render(" · "))
}

// runLine names run i. It gives its letter and label, how many streams it
// measured, what it measured, any partial lines its file had, and its
// target last. The target is cut in its middle to the room left (ElideURL)
// so its path's end shows. The label and the figures' rows come first, and
// a line too wide is cut.
func runLine(c *compare.Comparison, i, width int, st *Styles) string {
	r := &c.Runs[i]
	wl := &r.Summary.Workload
	s := st.Value.Render(fmt.Sprintf(" %-2s", compare.Letter(i))) + st.Value.Render(sanitize.Line(r.Label))
	// A run with no record yet (a replay's first second) has no format
	// or target to name.
	measured := fmt.Sprintf("%d measured", wl.Runs)
	var format, model, skipped string
	if wl.Format != "" {
		format = " · " + sanitize.Line(wl.Format)
	}
	if wl.Model != "" {
		model = " · model " + sanitize.Line(wl.Model)
	}
	if n := len(r.Skipped); n > 0 {
		skipped = st.Dim.Render(" · ") + st.Live.Render(fmt.Sprintf("%d partial line(s) skipped", n))
	}
	line := func(format string) string { return s + st.Dim.Render(" · "+measured+format+model) + skipped }
	if wl.Target == "" {
		return line(format)
	}
	// The target gets the room left. The format (which its path implies)
	// makes way first, and a target with too little room is left out.
	target := sanitize.Line(wl.Target)
	room := width - textfmt.Width(line(format)) - 3
	if room < urlMin(target, urlFloor) {
		format, room = "", width-textfmt.Width(line(""))-3
	}
	if room < min(textfmt.Width(target), minTargetRoom) {
		return line(format)
	}
	return line(format) + st.Dim.Render(" · "+ElideURLs(target, room))
}

// minTargetRoom is the least room a run's target is shown in.
const minTargetRoom = 16

// Widths of the figure table's cells (each followed by one space). The
// value, Δ and interval cells are at least as wide as these, and as wide
// as the comparison's widest ("-0.0027 ms", "[-0.79 ms, +0.92 ms]").
const (
	figLabelW = 17
	figValueW = 7
	figDeltaW = 8
	figPctW   = 8
	figMarkW  = 2
	figCIW    = 17
)

// figCols are the cells a non-baseline run gets, richest first, and the
// widths of its figures. Narrower terminals drop the noise interval, then
// the absolute change, then the percentage. The value and its marks
// always stay.
type figCols struct {
	abs, pct, ci        bool
	valueW, deltaW, ciW int
}

var figLevels = []figCols{{abs: true, pct: true, ci: true}, {abs: true, pct: true}, {pct: true}, {}}

// figLevelsFor are figLevels with the widths c's figures need.
func figLevelsFor(c *compare.Comparison) []figCols {
	w := figCols{valueW: figValueW, deltaW: figDeltaW, ciW: figCIW}
	secs := slices.Clone(c.Sections)
	for _, p := range c.Prompts {
		secs = append(secs, p.Sections...)
	}
	for _, sec := range secs {
		for _, r := range sec.Rows {
			for i, v := range r.Values {
				w.valueW = max(w.valueW, textfmt.Width(compare.FormatValue(r, v)))
				if d := r.Deltas[i]; d != nil {
					w.deltaW = max(w.deltaW, textfmt.Width(compare.FormatDeltaAbs(r, d)))
					w.ciW = max(w.ciW, textfmt.Width(ciText(r, d)))
				}
			}
		}
	}
	out := slices.Clone(figLevels)
	for i := range out {
		out[i].valueW, out[i].deltaW, out[i].ciW = w.valueW, w.deltaW, w.ciW
	}
	return out
}

func (fc figCols) runW() int {
	w := 1 + fc.valueW + 1 + figMarkW
	if fc.abs {
		w += fc.deltaW + 1
	}
	if fc.pct {
		w += figPctW + 1
	}
	if fc.ci {
		w += fc.ciW + 1
	}
	return w
}

func (fc figCols) width(runs int) int { return figLabelW + fc.valueW + 1 + (runs-1)*fc.runW() }

// FigureTable is a comparison's figures laid out for a terminal. Its column
// headings stay put and its body scrolls under them, shown in two
// columns when that fits it all on screen.
type FigureTable struct {
	head []string
	body []string
	// breaks are the body lines where a block (a section, a prompt)
	// begins. Those are the places the body may be split into two columns.
	breaks []int
	split  int // the body's first line in the second column, or 0 for one column
	colW   int
	width  int
	rule   lipgloss.Style // the line between two columns
}

// CompareFigures lays out the figures of c (the whole runs, or per prompt)
// for width × height. It gives one column group per run, with the same
// figure on the same line in every run. Each run beyond the baseline
// shows its change (absolute and in %), its marks (! worse by 10% or more,
// ~ within noise) and, when there is room, the noise interval of the change.
func CompareFigures(c *compare.Comparison, perPrompt bool, width, height int, st *Styles) FigureTable {
	n := len(c.Runs)
	levels := figLevelsFor(c)
	level := len(levels) - 1
	for i, fc := range levels {
		if fc.width(n) <= width {
			level = i
			break
		}
	}
	t := layFigures(c, perPrompt, levels[level], st)
	t.width, t.colW = width, levels[level].width(n)
	if len(t.head)+len(t.body) <= height {
		return t
	}
	// Two columns, when one figure per line still fits twice over with
	// its change, and the whole table then fits on screen.
	for i := 0; i <= 1; i++ {
		fc := levels[i]
		colW := fc.width(n)
		if 2*colW+3 > width {
			continue
		}
		t2 := layFigures(c, perPrompt, fc, st)
		t2.width, t2.colW = width, colW
		t2.split = t2.splitAt()
		if len(t2.head)+max(t2.split, len(t2.body)-t2.split) <= height {
			return t2
		}
	}
	return t
}

// figBody collects the body's lines and where its blocks begin.
type figBody struct {
	lines  []string
	breaks []int
}

func layFigures(c *compare.Comparison, perPrompt bool, fc figCols, st *Styles) FigureTable {
	t := FigureTable{head: figHead(c, fc, st), rule: st.Dim}
	var b figBody
	if !perPrompt {
		for _, sec := range c.Sections {
			b.breaks = append(b.breaks, len(b.lines))
			b.section(sec, "", fc, st)
		}
	} else {
		for _, p := range c.Prompts {
			b.breaks = append(b.breaks, len(b.lines))
			b.lines = append(b.lines, st.Title.Render("prompt "+sanitize.Line(p.ID)))
			for _, sec := range p.Sections {
				b.section(sec, "  ", fc, st)
			}
		}
	}
	t.body, t.breaks = b.lines, b.breaks
	return t
}

// splitAt is the block break that halves the body most evenly.
func (t FigureTable) splitAt() int {
	best := len(t.body)
	for _, b := range t.breaks {
		if b > 0 && max(b, len(t.body)-b) < max(best, len(t.body)-best) {
			best = b
		}
	}
	return best
}

func figHead(c *compare.Comparison, fc figCols, st *Styles) []string {
	var top, sub strings.Builder
	sub.WriteString(strings.Repeat(" ", figLabelW))
	for i, r := range c.Runs {
		name := compare.Letter(i) + " " + sanitize.Line(r.Label)
		if i == 0 {
			// The baseline's name may reach into the label column.
			top.WriteString(st.Value.Render(textfmt.FitRight(name, figLabelW+fc.valueW)) + " ")
			sub.WriteString(st.Label.Render(textfmt.FitRight("value", fc.valueW)) + " ")
			continue
		}
		top.WriteString(" " + st.Value.Render(textfmt.FitLeft(name, fc.runW()-1)))
		cells := " " + textfmt.FitRight("value", fc.valueW) + " "
		if fc.abs {
			cells += textfmt.FitRight("Δ", fc.deltaW) + " "
		}
		if fc.pct {
			cells += textfmt.FitRight("Δ%", figPctW) + " "
		}
		cells += strings.Repeat(" ", figMarkW)
		if fc.ci {
			cells += textfmt.FitLeft("95% CI of Δ", fc.ciW) + " "
		}
		sub.WriteString(st.Label.Render(cells))
	}
	return []string{top.String(), sub.String()}
}

func (b *figBody) section(sec compare.Section, indent string, fc figCols, st *Styles) {
	var l strings.Builder
	l.WriteString(st.Title.Render(textfmt.FitLeft(indent+sec.Title, figLabelW)))
	for i, n := range sec.N {
		cell := st.Label.Render(textfmt.FitRight(fmt.Sprintf("n=%d", n), fc.valueW)) + " "
		if i > 0 {
			cell = " " + cell + strings.Repeat(" ", fc.runW()-fc.valueW-2)
		}
		l.WriteString(cell)
	}
	b.lines = append(b.lines, l.String())
	for _, r := range sec.Rows {
		b.lines = append(b.lines, figRow(r, indent+"  ", fc, st))
	}
}

func figRow(r compare.Row, indent string, fc figCols, st *Styles) string {
	var b strings.Builder
	b.WriteString(st.Label.Render(textfmt.FitLeft(indent+sanitize.Line(r.Label), figLabelW)))
	for i, v := range r.Values {
		val := textfmt.FitRight(compare.FormatValue(r, v), fc.valueW)
		if v == nil {
			val = st.Undefined.Render(val)
		} else {
			val = st.Value.Render(val)
		}
		if i == 0 {
			b.WriteString(val + " ")
			continue
		}
		d := r.Deltas[i]
		style := deltaStyle(r, d, st)
		b.WriteString(" " + val + " ")
		if fc.abs {
			b.WriteString(style.Render(textfmt.FitRight(compare.FormatDeltaAbs(r, d), fc.deltaW)) + " ")
		}
		if fc.pct {
			b.WriteString(style.Render(textfmt.FitRight(compare.FormatDeltaPct(d), figPctW)) + " ")
		}
		b.WriteString(marks(d, st))
		if fc.ci {
			b.WriteString(st.Dim.Render(textfmt.FitLeft(ciText(r, d), fc.ciW)) + " ")
		}
	}
	return b.String()
}

// deltaStyle colours a change. Worse by WorsePct or more is in the alarm
// colour, as much better in the good one, and within noise is dimmed.
func deltaStyle(r compare.Row, d *compare.Delta, st *Styles) lipgloss.Style {
	switch {
	case d.Worse:
		return st.Failed
	case d.WithinNoise:
		return st.Dim
	case d.Abs != nil && d.Pct != nil && math.Abs(*d.Pct) >= compare.WorsePct &&
		(r.Better == stats.LowerIsBetter && *d.Abs < 0 || r.Better == stats.HigherIsBetter && *d.Abs > 0):
		return st.Done
	}
	return lipgloss.NewStyle()
}

// marks are a change's glyphs, so they read without colour. ! is worse by
// 10% or more and ~ is within noise.
func marks(d *compare.Delta, st *Styles) string {
	m := ""
	if d.Worse {
		m += st.Failed.Render("!")
	}
	if d.WithinNoise {
		m += st.Dim.Render("~")
	}
	return m + strings.Repeat(" ", figMarkW-lipgloss.Width(m))
}

// CompareLegend explains the figure table's marks, in at most width cells.
func CompareLegend(width int, st *Styles) string {
	for _, l := range []string{" 10%+ worse · ~ within noise (the 95% CI of Δ holds 0)", " 10%+ worse · ~ within noise", " worse ~ noise"} {
		if 1+lipgloss.Width(l) <= width {
			return st.Failed.Render("!") + st.Dim.Render(l)
		}
	}
	return ""
}

// Lines is how many lines the body has.
func (t FigureTable) Lines() int { return len(t.body) }

// MaxSkip is how far the body can scroll in height lines.
func (t FigureTable) MaxSkip(height int) int {
	if t.split > 0 {
		return 0
	}
	return max(0, len(t.body)-(height-len(t.head)))
}

// Render draws the table in height lines, the body scrolled by skip.
func (t FigureTable) Render(skip, height int) string {
	if t.width <= 0 || height <= 0 {
		return ""
	}
	rows := max(0, height-len(t.head))
	if t.split > 0 {
		left := textfmt.Fit(strings.Join(append(t.head[:len(t.head):len(t.head)], t.body[:t.split]...), "\n"), t.colW, height)
		right := textfmt.Fit(strings.Join(append(t.head[:len(t.head):len(t.head)], t.body[t.split:]...), "\n"), t.colW, height)
		sep := strings.TrimSuffix(strings.Repeat(" "+t.rule.Render("│")+" \n", height), "\n")
		return textfmt.Fit(lipgloss.JoinHorizontal(lipgloss.Top, left, sep, right), t.width, height)
	}
	skip = max(0, min(skip, t.MaxSkip(height)))
	body := t.body[skip:min(len(t.body), skip+rows)]
	return textfmt.Fit(strings.Join(append(t.head[:len(t.head):len(t.head)], body...), "\n"), t.width, height)
}

// ciText is a change's noise interval, or "" without one.
func ciText(r compare.Row, d *compare.Delta) string {
	if d.CI == nil {
		return ""
	}
	return "[" + signedIn(r, d.CI.Lo) + ", " + signedIn(r, d.CI.Hi) + "]"
}

// signedIn prints a change in a row's unit with its sign, a time as
// textfmt.SignedMS does.
func signedIn(r compare.Row, v float64) string {
	if r.Unit == "ms" {
		return textfmt.SignedMS(v)
	}
	return signed(v)
}

// signed prints a figure with its sign.
func signed(v float64) string {
	if v > 0 {
		return "+" + textfmt.FormatFloat(v)
	}
	return textfmt.FormatFloat(v)
}
