package compare

import (
	"fmt"
	"io"
	"math"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// Letter names run i in tables, where A is the baseline.
func Letter(i int) string {
	if i < 26 {
		return string(rune('A' + i))
	}
	return fmt.Sprintf("R%d", i+1)
}

// Legend explains the marks of the delta columns.
const Legend = "! worse by 10% or more (lower is better for latencies, failures and stalls; higher for completions and rates)\n" +
	"~ within noise: the 95% bootstrap interval of the difference contains 0"

// Format is the form a comparison is written in.
type Format int

// The forms Write writes, plain text by default.
const (
	FormatText Format = iota
	FormatJSON
	FormatMarkdown
)

// Write writes c in the form f. Only the JSON encoding can fail.
func Write(w io.Writer, c *Comparison, f Format) error {
	switch f {
	case FormatJSON:
		return JSON(w, c)
	case FormatMarkdown:
		Markdown(w, c)
	default:
		Text(w, c)
	}
	return nil
}

// Text writes the comparison as a plain text table.
func Text(w io.Writer, c *Comparison) {
	fmt.Fprintf(w, "drip compare · %d runs · baseline A\n", len(c.Runs))
	for i, r := range c.Runs {
		report.Para(w, fmt.Sprintf("  %-2s ", Letter(i)), "     ", runLine(&r))
	}
	if len(c.Workload) > 0 {
		fmt.Fprintln(w)
		report.Para(w, "", "  ", "! workload differs: a difference below may come from the workload, not the system")
		for _, d := range c.Workload {
			for i, v := range d.Values {
				name := ""
				if i == 0 {
					name = d.Setting
				}
				fmt.Fprintf(w, "  %-18s %-2s %s\n", name, Letter(i), sanitize.Line(v))
			}
		}
	}
	fmt.Fprintln(w)
	l, blocks := tableLayout(c)
	writeTable(w, c, l, blocks, func(runs []int) { writeSections(w, c.Sections, l, runs) })
	fmt.Fprintln(w)
	for _, l := range strings.Split(Legend, "\n") {
		report.Para(w, "", "  ", l)
	}

	writeReadings(w, c)
	writeNoise(w, c)
	if len(c.Prompts) > 0 {
		fmt.Fprintln(w, "\nper prompt")
		writeTable(w, c, l, blocks, func(runs []int) {
			for _, p := range c.Prompts {
				fmt.Fprintf(w, "prompt %s\n", sanitize.Line(p.ID))
				writeSections(w, indent(p.Sections), l, runs)
			}
		})
	}
	if len(c.Gates) > 0 {
		fmt.Fprintln(w, "\ngates")
		GateLines(w, c.Gates)
	}
	if c.Levels != nil {
		fmt.Fprintln(w)
		sweep.Text(w, c.Levels)
		fmt.Fprintln(w)
		sweep.TextPlots(w, c.Levels)
	}
}

// runLine describes a run in one line.
func runLine(r *Run) string {
	wl := &r.Summary.Workload
	s := fmt.Sprintf("%s · %d measured · %s", sanitize.Line(r.Label), wl.Runs, sanitize.Line(wl.Format))
	if wl.Model != "" {
		s += " · model " + sanitize.Line(wl.Model)
	}
	s += " · " + sanitize.Line(wl.Target)
	if n := len(r.Skipped); n > 0 {
		s += fmt.Sprintf(" · %d partial line(s) skipped", n)
	}
	if none := NoneCompleted(&r.Summary); none != "" {
		s += " · " + none
	}
	return s
}

// NoneCompleted says plainly that a run has no completed measured stream
// (its latencies after the first token, e2e and rates are then —), with
// its failures by class and the streams cut short. It is "" when some
// completed or none was measured. drip merge says it of each host's file.
func NoneCompleted(s *stats.Summary) string {
	st := &s.Streams
	if st.Completed > 0 || st.Attempted == 0 {
		return ""
	}
	msg := fmt.Sprintf("no measured stream completed: %d attempted, %d failed%s", st.Attempted, st.Failed, report.ByClass(st.FailedBy))
	if st.Incomplete > 0 {
		msg += fmt.Sprintf(", %d incomplete", st.Incomplete)
	}
	if st.Canceled > 0 {
		msg += fmt.Sprintf(", %d canceled", st.Canceled)
	}
	return msg
}

// FormatValue formats a row's figure, a time as every report prints one
// (181 ms), counts as whole numbers and undefined as —.
func FormatValue(r Row, v *float64) string {
	if r.Unit == "ms" {
		return textfmt.OptMS(v)
	}
	if v != nil && r.Unit == "" && *v == math.Trunc(*v) && math.Abs(*v) < 1e15 {
		return strconv.FormatFloat(*v, 'f', 0, 64)
	}
	return textfmt.Num(v)
}

// Marks are a delta's marks, ! for worse and ~ for within noise.
func Marks(d *Delta) string {
	s := ""
	if d.Worse {
		s += "!"
	}
	if d.WithinNoise {
		s += "~"
	}
	return s
}

// FormatDeltaAbs formats a delta's absolute change with its sign.
func FormatDeltaAbs(r Row, d *Delta) string {
	if d.Abs == nil {
		return "—"
	}
	if r.Unit == "ms" {
		return textfmt.SignedMS(*d.Abs)
	}
	s := FormatValue(r, d.Abs)
	if *d.Abs > 0 {
		s = "+" + s
	}
	return s
}

// FormatDeltaPct formats a delta's relative change with its sign.
func FormatDeltaPct(d *Delta) string {
	if d.Pct == nil {
		return "—"
	}
	return signed(*d.Pct) + "%"
}

// writeReadings says which clocks moved in each run and what follows.
func writeReadings(w io.Writer, c *Comparison) {
	fmt.Fprintln(w)
	report.Para(w, "clocks ", "  ", "("+MovedRule+")")
	for _, rd := range c.Readings {
		fmt.Fprintf(w, "  %-2s %s\n", Letter(rd.Run), sanitize.Line(rd.Label))
		if unknownClocks(rd.Clocks) {
			report.Para(w, "     ", "     ", "every clock unknown ("+noIntervalWords+")")
		}
		for _, m := range rd.Clocks {
			if m.Moved != nil || !unknownClocks(rd.Clocks) {
				report.Para(w, fmt.Sprintf("     %-11s %-8s", m.Clock, movedWord(m.Moved)), strings.Repeat(" ", 26), m.Evidence)
			}
		}
		report.Para(w, "     reading: ", "       ", rd.Verdict)
	}
}

// unknownClocks reports whether no clock of a run has an interval.
func unknownClocks(ms []ClockMove) bool {
	for _, m := range ms {
		if m.Moved != nil {
			return false
		}
	}
	return true
}

// movedWord is a clock's state in one word.
func movedWord(m *bool) string {
	switch {
	case m == nil:
		return "unknown"
	case *m:
		return "moved"
	}
	return "held"
}

// writeNoise lists the interval of every p50 and p95 difference.
func writeNoise(w io.Writer, c *Comparison) {
	fmt.Fprintln(w)
	report.Para(w, "noise: ", "  ", fmt.Sprintf("%.0f%% intervals of the difference from A (%s; %d resamples, seed %d)",
		c.Noise.Confidence*100, c.Noise.Method, c.Noise.Resamples, c.Noise.Seed))
	lines, none := withoutIntervals(noiseLines(c))
	width := 0 // the metric column, as wide as its longest name (first_event p50)
	for _, n := range lines {
		width = max(width, utf8.RuneCountInString(n.metric))
	}
	for _, n := range lines {
		report.Para(w, fmt.Sprintf("  %-*s %-2s ", width, n.metric, n.run), strings.Repeat(" ", width+6), n.verdict)
	}
	for _, run := range none {
		report.Para(w, fmt.Sprintf("  %-2s ", run), "     ", fmt.Sprintf("%s, so the differences above are without one", noIntervalWords))
	}
}

// NoiseVerdict says what a delta's interval shows.
func NoiseVerdict(r Row, d *Delta) string {
	if d.Abs == nil {
		return "—"
	}
	s := signedIn(r, *d.Abs)
	if d.CI == nil {
		return fmt.Sprintf("%s, no interval: fewer than %d streams with samples in a run", s, stats.MinNoiseStreams)
	}
	var lo, hi string
	if r.Unit == "ms" { // the change and its interval told apart, in one form
		t := textfmt.MSApart(d.CI.Lo, d.CI.Hi, *d.Abs)
		lo, hi, s = textfmt.Plus(d.CI.Lo, t[0]), textfmt.Plus(d.CI.Hi, t[1]), textfmt.Plus(*d.Abs, t[2])
	} else {
		lo, hi = signedIn(r, d.CI.Lo), signedIn(r, d.CI.Hi)
	}
	if d.WithinNoise {
		return fmt.Sprintf("%s in [%s, %s]: within noise", s, lo, hi)
	}
	return fmt.Sprintf("%s in [%s, %s]: beyond noise", s, lo, hi)
}

// signedIn prints a change in a row's unit with its sign, a time as
// textfmt.SignedMS does.
func signedIn(r Row, v float64) string {
	if r.Unit == "ms" {
		return textfmt.SignedMS(v)
	}
	return strings.TrimSpace(signed(v) + " " + r.Unit)
}

// indent nests per-prompt sections under their prompt.
func indent(secs []Section) []Section {
	out := make([]Section, len(secs))
	for i, s := range secs {
		s.Title = "  " + s.Title
		rows := make([]Row, len(s.Rows))
		for j, r := range s.Rows {
			r.Label = "  " + r.Label
			rows[j] = r
		}
		s.Rows = rows
		out[i] = s
	}
	return out
}

// GateLines prints each gate's verdict on its own line, with the letter of
// the run it judged. It is one line however wide, so a CI log can be
// grepped.
func GateLines(w io.Writer, gates []GateResult) {
	for _, g := range gates {
		fmt.Fprintf(w, "  %s %-2s %s — %s\n", report.GateMark(g.Tripped), Letter(g.RunIndex), g.Expr, g.Message)
	}
}
