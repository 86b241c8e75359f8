package views

import (
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/sweep"
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
	pts := sweep.PointsOf(r.Levels)
	ink := sweep.Ink{Label: st.Label.Render, Dim: st.Dim.Render, Color: st.Color}
	table := strings.Join(rows, "\n")
	switch beside := height - len(verdict); {
	case width-tw-2 >= 3*sweep.PlotMinW && beside >= 8:
		top := textfmt.Beside(textfmt.Fit(table, tw, beside), sweep.Plots(pts, r.Kind, width-tw-2, beside, ink), tw+2, beside)
		table = strings.Join(append([]string{top}, verdict...), "\n")
	case height-len(rows)-len(verdict) >= 8:
		table = strings.Join(append(rows, verdict...), "\n") + "\n" +
			sweep.Plots(pts, r.Kind, width, height-len(rows)-len(verdict), ink)
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
	widths := textfmt.ColumnWidths(append([][]string{titles}, rows...))
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
		for _, w := range textfmt.ColumnWidths(append([][]string{sweepTitles(cols)}, rows...)) {
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
