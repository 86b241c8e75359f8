package views

import (
	"fmt"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/report"
	"github.com/driplab/drip/sanitize"
)

// TargetTitle is a target pane's title line: its letter and name, the
// run, and where its current stream is — first byte as soon as it is
// known, a stall in progress growing, a buffered stream's end-to-end rate.
func TargetTitle(letter, name string, s *Stream, width int, st *Styles) string {
	status, stStyle := statusText(s, st)
	r := s.Record
	var extra []string
	if s.Phase == PhaseStreaming || s.Phase == PhaseDone {
		if r.FirstByteMS != nil {
			extra = append(extra, "first byte "+fmtMS(*r.FirstByteMS))
		}
		if r.TTFTMS != nil {
			extra = append(extra, "ttft "+fmtMS(*r.TTFTMS))
		}
		if n := len(r.Stalls); n > 0 {
			extra = append(extra, fmt.Sprintf("%d stalls (%d mid-sentence)", n, r.MidSentenceStalls()))
		}
	}
	line := st.TitleFocused.Render(" "+letter+" ") + " " + st.Value.Render(sanitize.Line(name)) +
		st.Dim.Render(fmt.Sprintf(" · run %d · ", s.Run)) + stStyle.Render(status)
	for _, e := range extra {
		line += st.Dim.Render(" · ") + st.Label.Render(e)
	}
	return fit(line, width, 1)
}

// targetRow is a figure of the clocks table, by its compare row key.
type targetRow struct{ key, label string }

var targetRows = []targetRow{
	{"ttft.p50", "ttft p50"}, {"ttft.p95", "ttft p95"}, {"gap.p50", "gap p50"}, {"gap.p99", "gap p99"},
	{"e2e.p50", "e2e p50"}, {"tail.p50", "tail p50"}, {"stalls", "stalls"}, {"stalls.mid_sentence", "mid-sentence"},
	{"tps_user.p50", "tok/s/user"},
}

// TargetClocksRows is how many lines TargetClocks wants: a heading, a row
// per figure and the note.
func TargetClocksRows() int { return len(targetRows) + 2 }

// TargetClocks is the watch screen's clocks table: a column per target
// with its figure over the target's finished runs, and for every target
// after the first its delta against the first, carrying the bootstrap
// interval compare computes once both have three or more runs (~ marks a
// delta within noise, ! one worse by 10 % or more). c is nil until every
// target has finished a run.
func TargetClocks(c *compare.Comparison, names []string, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if c == nil {
		return fit(st.Dim.Render("the figures and their deltas fill in as each target finishes a run"), width, height)
	}
	rows := map[string]compare.Row{}
	for _, sec := range c.Sections {
		for _, r := range sec.Rows {
			rows[r.Key] = r
		}
	}
	n := len(c.Runs)
	cells := make([][]string, len(targetRows)+1)
	cells[0] = []string{""}
	for i := range n {
		runs := "runs"
		if len(c.Runs[i].Records) == 1 {
			runs = "run"
		}
		cells[0] = append(cells[0], fmt.Sprintf("%s %d %s", compare.Letter(i), len(c.Runs[i].Records), runs))
	}
	withCI := false
	for j, tr := range targetRows {
		r := rows[tr.key]
		line := []string{tr.label}
		for i := range n {
			v := "—"
			if i < len(r.Values) {
				v = compare.Value(r, r.Values[i])
				if r.Unit == "ms" && r.Values[i] != nil {
					v += " ms"
				}
			}
			if i > 0 && i < len(r.Deltas) && r.Deltas[i] != nil {
				d := r.Deltas[i]
				v += " " + compare.DeltaAbs(r, d) + " " + compare.DeltaPct(d)
				if d.CI != nil {
					v += fmt.Sprintf(" [%s,%s]", signedNum(d.CI.Lo), signedNum(d.CI.Hi))
					withCI = true
				}
				if m := compare.Marks(d); m != "" {
					v += " " + m
				}
			}
			line = append(line, v)
		}
		cells[j+1] = line
	}
	widths := make([]int, n+1)
	for _, line := range cells {
		for i, c := range line {
			widths[i] = max(widths[i], ansi.StringWidth(c))
		}
	}
	var lines []string
	for j, line := range cells {
		var b strings.Builder
		for i, c := range line {
			style := st.Value
			switch {
			case j == 0 || i == 0:
				style = st.Label
			case c == "—":
				style = st.Undefined
			case strings.HasSuffix(c, "!"):
				style = st.Failed
			}
			b.WriteString(style.Render(c) + strings.Repeat(" ", widths[i]-ansi.StringWidth(c)+2))
		}
		lines = append(lines, b.String())
	}
	note := "p50 of each target's runs · Δ vs A"
	if withCI {
		note += fmt.Sprintf(" · [%.0f%% interval] · ~ noise · ! worse", c.Noise.Confidence*100)
	} else {
		note += fmt.Sprintf(" · intervals from %d runs per target", compare.MinNoiseStreams)
	}
	// Rows that do not fit are counted, never dropped unsaid.
	if len(lines)+1 > height {
		keep := max(1, height-1)
		cut := len(lines) - keep
		lines = lines[:keep]
		note = fmt.Sprintf("… %d more rows: 2 shows every figure · ", cut) + note
	}
	lines = append(lines, st.Dim.Render(note))
	return fit(strings.Join(lines, "\n"), width, height)
}

func signedNum(v float64) string {
	if v > 0 {
		return "+" + report.FormatFloat(v)
	}
	return report.FormatFloat(v)
}
