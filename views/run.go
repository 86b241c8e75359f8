package views

import (
	"fmt"
	"maps"
	"slices"
	"strings"

	"charm.land/bubbles/v2/progress"
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// RunState is where a run is in its life.
type RunState uint8

// States of a run.
const (
	RunRunning RunState = iota // admitting or finishing streams
	RunDone                    // every stream recorded
	RunStopped                 // stopped by the user, with in-flight streams canceled
)

// RunSnapshot is a run as the run screen's top shows it. It holds the live counts
// the runner publishes (probe.Progress) and the summary of the records so
// far, from the same stats.Aggregate the headless report uses.
type RunSnapshot struct {
	Target, Format, Model string
	Load                  string // the workload in words
	State                 RunState
	ElapsedMS             float64
	Runs                  int     // measured streams planned, or 0 when the duration decides
	DurationMS            float64 // admission window, or 0 when the runs decide
	OpenLoop              bool
	// Live counts.
	Attempted, Admitted, InFlight, NotAdmitted, Finished, Warmup int64
	// Open loop, until the run's lag distribution is in the summary.
	LagMaxMS float64
	LagOver  int64 // arrivals later than probe.ScheduleLagBoundMS
	Summary  *stats.Summary
}

// Fraction is how far the run is, 0 to 1. It is streams recorded of those
// planned, or time of the admission window, whichever is further.
func (s *RunSnapshot) Fraction() float64 {
	if s.State == RunDone {
		return 1
	}
	f := 0.0
	if s.Runs > 0 {
		f = float64(s.Finished) / float64(s.Runs)
	}
	if s.DurationMS > 0 {
		f = max(f, s.ElapsedMS/s.DurationMS)
	}
	return min(max(f, 0), 1)
}

// RunHeader is the run screen's status line and, given a second line, what
// is measured and how.
func RunHeader(s *RunSnapshot, note string, width, height int, st *Styles) string {
	var status string
	var style lipgloss.Style
	switch s.State {
	case RunRunning:
		status, style = "running "+textfmt.MS(s.ElapsedMS), st.Live
	case RunDone:
		status, style = "finished "+textfmt.MS(s.ElapsedMS), st.Done
	default:
		status, style = "stopped "+textfmt.MS(s.ElapsedMS)+": in-flight streams canceled", st.Failed
	}
	line := st.Title.Render("drip run") + st.Dim.Render(" · ") + style.Render(status)
	if note != "" {
		line += st.Dim.Render(" · ") + st.Value.Render(sanitize.Line(note))
	}
	lines := []string{line}
	if height >= 2 {
		lines = append(lines, whatLine(s.Target, width, st, whatParts(s.Format, s.Model, s.Load, st)...))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, min(height, 2))
}

// RunCounts is the run's progress bar, its accounting, its headline figures
// and, for an open loop, the schedule. It takes as many lines as it needs
// up to maxH, the least important last.
func RunCounts(s *RunSnapshot, width, maxH int, st *Styles) string {
	if width <= 0 || maxH <= 0 {
		return ""
	}
	progress, moved := progressLine(s, width, st)
	counts := countItems(s, st)
	if moved {
		counts = append(startedItems(s, st), counts...)
	}
	lines := append([]string{progress}, flow(counts, width, st)...)
	if s.Summary != nil {
		lines = append(lines, flow(figureItems(s.Summary, s.InFlight, st), width, st)...)
		if s.OpenLoop {
			lines = append(lines, flow(openItems(s, st), width, st)...)
		}
	}
	if len(lines) > maxH {
		lines = lines[:maxH]
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, len(lines))
}

// progressLine is a static bar (bubbles progress, drawn with ViewAs at the
// run's fraction) followed by the streams recorded and started. Where the
// bar would be too short, the started counts go to the accounting lines
// (moved reports so).
func progressLine(s *RunSnapshot, width int, st *Styles) (line string, moved bool) {
	goal := fmt.Sprintf("%d recorded", s.Finished)
	if s.Runs > 0 {
		goal = fmt.Sprintf("%d/%d recorded", s.Finished, s.Runs)
	}
	if s.DurationMS > 0 {
		goal += fmt.Sprintf(" · %s of %s", textfmt.MS(min(s.ElapsedMS, s.DurationMS)), textfmt.MS(s.DurationMS))
	}
	const minBar = 16
	label := st.Value.Render(goal)
	if full := label + st.Dim.Render(" · ") + strings.Join(startedItems(s, st), st.Dim.Render(" · ")); width-lipgloss.Width(full)-1 >= minBar {
		label = full
	} else {
		moved = true
	}
	barW := width - lipgloss.Width(label) - 1
	if barW < minBar {
		return label, moved
	}
	bar := progress.New(progress.WithWidth(barW), progress.WithoutPercentage(), progress.WithFillCharacters('█', '░'))
	if st.Color {
		bar.FullColor = st.Title.GetForeground()
		bar.EmptyColor = st.Dim.GetForeground()
	} else {
		bar.FullColor, bar.EmptyColor = lipgloss.NoColor{}, lipgloss.NoColor{}
	}
	return bar.ViewAs(s.Fraction()) + " " + label, moved
}

// startedItems count the streams started.
func startedItems(s *RunSnapshot, st *Styles) []string {
	return []string{
		item("attempted", fmt.Sprint(s.Attempted), st),
		item("admitted", fmt.Sprint(s.Admitted), st),
		item("in flight", fmt.Sprint(s.InFlight), st),
	}
}

func item(label, value string, st *Styles) string {
	return st.Label.Render(label+" ") + st.Value.Render(value)
}

// countItems is the accounting of recorded streams. Every stream is in one
// bucket. Attempted, admitted and in flight are on the progress line.
func countItems(s *RunSnapshot, st *Styles) []string {
	var sum stats.Streams
	if s.Summary != nil {
		sum = s.Summary.Streams
	}
	items := []string{item("completed", fmt.Sprint(sum.Completed), st)}
	failed := item("failed", fmt.Sprint(sum.Failed), st)
	if sum.Failed > 0 {
		var by []string
		for _, k := range slices.Sorted(maps.Keys(sum.FailedBy)) {
			by = append(by, fmt.Sprintf("%s %d", sanitize.Line(k), sum.FailedBy[k]))
		}
		failed = st.Label.Render("failed ") + st.Failed.Render(fmt.Sprint(sum.Failed))
		if len(by) > 0 {
			failed += st.Dim.Render(" (" + strings.Join(by, ", ") + ")")
		}
	}
	items = append(items, failed,
		item("incomplete", fmt.Sprint(sum.Incomplete), st),
		item("canceled", fmt.Sprint(sum.Canceled), st),
		item("buffered", fmt.Sprint(sum.Buffered), st))
	// A closed loop admits every arrival, so not admitted is an open loop's.
	if s.OpenLoop || s.NotAdmitted > 0 {
		items = append(items, item("not admitted", fmt.Sprint(s.NotAdmitted), st))
	}
	if s.Warmup > 0 {
		items = append(items, item("warmup", fmt.Sprint(s.Warmup), st)+st.Dim.Render(" (excluded)"))
	}
	return items
}

// pctl is "p50 12.5 ms p99 40.1 ms n=30" for a distribution.
func pctl(name string, d stats.Dist, st *Styles) string {
	if d.N == 0 {
		return st.Label.Render(name+" ") + st.Undefined.Render("—")
	}
	return st.Label.Render(name+" p50 ") + st.Value.Render(textfmt.OptMS(d.P50)) +
		st.Label.Render(" p99 ") + st.Value.Render(textfmt.OptMS(d.P99)) + st.Label.Render(fmt.Sprintf(" n=%d", d.N))
}

// figureItems are the headline figures of the records so far. While
// streams are in flight the line says its figures are the finished
// streams' only. The in-flight rows below already show a ttft or a stall
// that "ttft —" or "stalls 0" here does not count.
func figureItems(s *stats.Summary, inFlight int64, st *Styles) []string {
	m := s.Metrics
	ttft := pctl("ttft", stats.TTFT.Of(m), st)
	if inFlight > 0 {
		ttft = st.Dim.Render("finished streams only: ") + ttft
	}
	items := []string{ttft, pctl("gap", stats.Gap.Of(m), st)}
	if e2e := stats.E2E.Of(m); e2e.N > 0 {
		items = append(items, st.Label.Render("e2e p50 ")+st.Value.Render(textfmt.OptMS(e2e.P50)))
	}
	if itl := stats.ITL.Of(m); itl.N > 0 {
		items = append(items, st.Label.Render("itl p50 ")+st.Value.Render(textfmt.OptMS(itl.P50)))
	}
	if tp := s.Throughput.TokensPerS; tp != nil {
		items = append(items, st.Value.Render(textfmt.Num(tp))+st.Label.Render(" tok/s"))
	}
	stalls := st.Label.Render("stalls ") + st.Value.Render(fmt.Sprint(s.Stalls.Count))
	if s.Stalls.MidSentence > 0 {
		stalls = st.Label.Render("stalls ") + st.StallMid.Render(fmt.Sprintf("%d (%d mid-sentence)", s.Stalls.Count, s.Stalls.MidSentence))
	}
	return append(items, stalls)
}

// openItems are an open loop's schedule and the user's view. The schedule
// says how late the generator ran. Once the run ends that is its
// distribution. Meanwhile it is the largest lag and the arrivals over the
// bound.
func openItems(s *RunSnapshot, st *Styles) []string {
	ol := s.Summary.OpenLoop
	if ol == nil {
		return []string{st.Label.Render("open loop: no arrival recorded yet")}
	}
	var items []string
	if d := ol.ScheduleLag; d.N > 0 {
		verdict := st.Done.Render("within bound")
		if ol.ClientLimited {
			verdict = st.Failed.Render("CLIENT-LIMITED")
		}
		items = append(items, st.Label.Render("schedule lag p99 ")+st.Value.Render(textfmt.OptMS(d.P99))+
			st.Label.Render(fmt.Sprintf(" n=%d · bound %s: ", d.N, textfmt.MS(ol.LagBoundMS)))+verdict)
	} else {
		verdict := ""
		if s.LagOver*100 > s.Attempted { // a hint that the p99 at the end is near or past the bound
			verdict = " · " + st.Failed.Render("behind schedule")
		}
		items = append(items, st.Label.Render("schedule lag so far max ")+st.Value.Render(textfmt.MS(s.LagMaxMS))+
			st.Label.Render(fmt.Sprintf(" · %d of %d over %s", s.LagOver, s.Attempted, textfmt.MS(stats.ScheduleLagBoundMS)))+verdict)
	}
	items = append(items, pctl("client queue", ol.ClientQueue, st), pctl("ttft from intended", ol.TTFTUser, st))
	return items
}

// flow lays items out on lines of at most width cells, " · " between them.
// With no items it gives no lines.
func flow(items []string, width int, st *Styles) []string {
	if len(items) == 0 {
		return nil
	}
	return textfmt.Lines(items, st.Dim.Render(" · "), width, "", "")
}

// RunHeatmap draws one row per stream (those given, in order) and one
// column per content frame index, or per time bucket when byTime is set.
// Cells are shaded by gap as Heatmap does. Stream sel is highlighted.
func RunHeatmap(recs []*record.Record, sel int, stallMS float64, byTime bool, width, height int, st *Styles) string {
	if len(recs) == 0 || width-labelWidth < 4 || height < 1 {
		return textfmt.Fit(st.Dim.Render("no streams yet"), width, height)
	}
	sc := heatScaleOf(recs, stallMS)
	rows := height
	if height >= 2 {
		rows = height - 1
	}
	lines := heatRows(recs, byTime, 0, rows, sel, &st.TitleFocused, sc, width, st)
	if height >= 2 {
		lines = append(lines, heatLegend(stats.HeatShadeEdges(stallMS), byTime, sc.per(width-labelWidth), sc.span, width, st))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}
