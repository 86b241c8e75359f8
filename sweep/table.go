package sweep

import (
	"fmt"
	"io"
	"slices"
	"strconv"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// Column is one column of the per-level table.
type Column struct {
	Title string
	cell  func(*Level) string
}

// Columns are the per-level table's columns for these levels. Goodput is
// there only when some level has it, and the schedule lag only for rates.
func Columns(kind string, levels []Level) []Column {
	cols := []Column{
		{kind, func(l *Level) string { return LevelNum(l.Level) }},
		{"streams", func(l *Level) string { return strconv.Itoa(l.Streams) }},
		{"failed", func(l *Level) string { return strconv.Itoa(l.Failed) }},
		{"ttft p50", func(l *Level) string { return textfmt.OptMS(stats.TTFT.Of(l.Metrics).P50) }},
		{"ttft p95", func(l *Level) string { return textfmt.OptMS(stats.TTFT.Of(l.Metrics).P95) }},
		{"gap p99", func(l *Level) string { return textfmt.OptMS(stats.Gap.Of(l.Metrics).P99) }},
		{"stalls/str", func(l *Level) string { return textfmt.Num(l.StallsPerStream) }},
		{"itl p50", func(l *Level) string { return textfmt.OptMS(stats.ITL.Of(l.Metrics).P50) }},
		{"tok/s", func(l *Level) string { return textfmt.Num(l.Throughput.TokensPerS) }},
	}
	if slices.ContainsFunc(levels, func(l Level) bool { return l.Goodput != nil }) {
		cols = append(cols, Column{"goodput %", func(l *Level) string { return textfmt.Num(l.Goodput) }})
	}
	if kind == KindRate {
		cols = append(cols, Column{"lag p99", func(l *Level) string {
			if l.OpenLoop == nil {
				return "—"
			}
			return textfmt.OptMS(l.OpenLoop.ScheduleLag.P99)
		}})
	}
	return cols
}

// Units name what the columns hold, for the line under the table. A
// latency carries its own unit.
const Units = "stalls/str: stalls per measured stream · tok/s: output tokens per second over the level's window"

// Cells are the table's rows, each a level's figures and its mark (knee,
// partial, or "").
func Cells(r *Result) (cols []Column, rows [][]string, marks []string) {
	cols = Columns(r.Kind, r.Levels)
	for i := range r.Levels {
		l := &r.Levels[i]
		row := make([]string, len(cols))
		for j, c := range cols {
			row[j] = c.cell(l)
		}
		rows = append(rows, row)
		marks = append(marks, Mark(r, l))
	}
	return cols, rows, marks
}

// Mark is a level's mark in the table.
func Mark(r *Result, l *Level) string {
	switch {
	case r.Knee != nil && r.Knee.Level == l.Level:
		return "◀ knee"
	case l.Partial:
		return "partial"
	}
	return ""
}

// LevelNum prints a level as typed, such as 8 or 2.5.
func LevelNum(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Text writes the per-level table, the knee and why the sweep stopped,
// within 80 columns. Each title takes two rows (ttft over p50), and the
// columns stand two apart, or one apart where that does not fit (a rate
// sweep with goodput and lag).
func Text(w io.Writer, r *Result) {
	fmt.Fprintf(w, "sweep · %s %s\n", r.Kind, joinLevels(r.Planned))
	cols, rows, marks := Cells(r)
	titles := [][]string{make([]string, len(cols)), make([]string, len(cols))}
	for j, c := range cols {
		h := textHead(c.Title)
		titles[0][j], titles[1][j] = h[0], h[1]
	}
	writeCells(w, append(titles, rows...), append([]string{"", ""}, marks...))
	units := Units
	if r.Kind == KindConcurrency {
		units = "conc: streams in flight · " + units
	}
	report.Para(w, "  ", "    ", units)
	report.Para(w, "  ", "    ", Verdict(r))
	if r.Stopped != nil {
		report.Para(w, "  stopped: ", "    ", *r.Stopped)
	}
}

// writeCells writes rows of cells right-aligned in columns, each row's
// mark after it. The columns stand two apart, or one apart where that
// does not fit report.Width, and lose their indent where even that does
// not.
func writeCells(w io.Writer, rows [][]string, marks []string) {
	widths := textfmt.ColumnWidths(rows)
	markW := 0
	for _, m := range marks {
		markW = max(markW, ansi.StringWidth(m))
	}
	sep, indent := "  ", "  "
	if tableWidth(widths, 2, markW) > report.Width {
		sep = " "
	}
	if tableWidth(widths, 1, markW) > report.Width {
		indent = "" // the last two columns, so a rate sweep's lag still fits
	}
	for i, cells := range rows {
		var b strings.Builder
		for j, c := range cells {
			if j > 0 {
				b.WriteString(sep)
			}
			b.WriteString(textfmt.PadLeft(c, widths[j]))
		}
		if marks[i] != "" {
			b.WriteString(sep + marks[i])
		}
		fmt.Fprintln(w, indent+strings.TrimRight(b.String(), " "))
	}
}

// textHead is a column title on the text table's two rows. The level's
// kind is shortened, and a statistic stands under its metric ("ttft" over
// "p50").
func textHead(title string) [2]string {
	switch title {
	case KindConcurrency:
		return [2]string{"", "conc"}
	case KindRate:
		return [2]string{"rate", "/s"}
	case "stalls/str":
		return [2]string{"stalls", "/str"}
	}
	if top, bottom, ok := strings.Cut(title, " "); ok {
		return [2]string{top, bottom}
	}
	return [2]string{"", title}
}

// tableWidth is the text table's width: its indent, columns, separators
// and a mark column.
func tableWidth(widths []int, sep, markW int) int {
	n := 2 + sep*(len(widths)-1)
	for _, w := range widths {
		n += w
	}
	if markW > 0 {
		n += sep + markW
	}
	return n
}

// Verdict is the knee in one line, or that there was none, with the rule.
func Verdict(r *Result) string {
	if r.Knee != nil {
		return "knee: " + r.Knee.Reason
	}
	if len(r.Levels) < 2 {
		return "knee: none (it needs two levels)"
	}
	judged := false // some level and the one before it could be compared
	for i := 1; i < len(r.Levels); i++ {
		judged = judged || judgeable(&r.Levels[i-1], &r.Levels[i])
	}
	why := unjudged(r)
	if !judged {
		// "none" would read as a sweep that found no knee, but it looked at
		// none.
		v := "knee: not judged: " + strings.Join(why, "; ") + "; no two adjacent levels could be compared"
		if slices.ContainsFunc(r.Levels, func(l Level) bool { return len(l.obs.ttft) < stats.MinNoiseStreams }) {
			v += "; give more per level (--runs-per-level)"
		}
		return v
	}
	v := "knee: none — no level's ttft p95 or gap p99 rose more than 25% and 50 ms beyond noise while throughput rose less than 10%"
	if len(why) > 0 {
		v += " (not judged: " + strings.Join(why, "; ") + ")"
	}
	return v
}

// unjudged names the levels KneeRule could not use, by reason. A level
// has too few streams for a noise interval, was cut short, or has no
// throughput.
func unjudged(r *Result) []string {
	var few, cut, noTP []string
	for _, l := range r.Levels {
		n := LevelNum(l.Level)
		if len(l.obs.ttft) < stats.MinNoiseStreams {
			few = append(few, n)
		}
		if l.Partial {
			cut = append(cut, n)
		}
		if tp := l.Throughput.TokensPerS; tp == nil || *tp <= 0 {
			noTP = append(noTP, n)
		}
	}
	var why []string
	if len(few) > 0 {
		why = append(why, fmt.Sprintf("%s %s had fewer than %d streams with a first token, too few for a noise interval", r.Kind, strings.Join(few, ", "), stats.MinNoiseStreams))
	}
	if len(cut) > 0 {
		why = append(why, fmt.Sprintf("%s %s was cut short", r.Kind, strings.Join(cut, ", ")))
	}
	if len(noTP) > 0 {
		why = append(why, fmt.Sprintf("%s %s had no throughput", r.Kind, strings.Join(noTP, ", ")))
	}
	return why
}

// Markdown writes the per-level table for a pull request.
func Markdown(w io.Writer, r *Result) {
	fmt.Fprintf(w, "### drip sweep: %s %s\n\n", r.Kind, joinLevels(r.Planned))
	cols, rows, marks := Cells(r)
	var head, rule []string
	for _, c := range cols {
		head = append(head, c.Title)
		rule = append(rule, "--:")
	}
	fmt.Fprintf(w, "| %s | |\n|%s|---|\n", strings.Join(head, " | "), strings.Join(rule, "|"))
	for i, row := range rows {
		mark := marks[i]
		if mark != "" {
			mark = "**" + mark + "**"
		}
		fmt.Fprintf(w, "| %s | %s |\n", strings.Join(row, " | "), mark)
	}
	fmt.Fprintf(w, "\n%s.\n\n**%s**\n", Units, Verdict(r))
	if r.Stopped != nil {
		fmt.Fprintf(w, "\nStopped: %s\n", *r.Stopped)
	}
	fmt.Fprintf(w, "\n<details><summary>Knee rule</summary>\n\n%s.\n</details>\n", KneeRule)
}

func joinLevels(lv []float64) string {
	s := make([]string, len(lv))
	for i, v := range lv {
		s[i] = LevelNum(v)
	}
	return strings.Join(s, ",")
}
