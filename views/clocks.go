package views

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Clocks is the input of the clocks panel. Every figure comes from a
// stats.Summary built by stats.Aggregate, the same function the headless
// report uses, so the two agree by construction.
type Clocks struct {
	Record *record.Record // the current stream
	This   *stats.Summary // the current stream alone
	All    *stats.Summary // every finished run, when there are two or more
	// Stalling is a stall in progress (LiveStall). The stream's own figures
	// count a stall once it ends, and the header already says
	// "stalled ⏸ 678ms…". So the row counts it, says it is in progress, and
	// counts it among the mid-sentence ones when the text before it says so.
	Stalling bool
}

// ClocksAllWidth is the least width the clocks panel shows the all-runs
// column in.
const ClocksAllWidth = 64

// clockLabelW is the width of the labels' column.
const clockLabelW = 15

// clockRow is a label and its figures for this run and for all runs.
type clockRow struct{ label, this, all string }

// ClocksPanel renders the registry's metrics that have a place on the
// panel (stats.Metric.Clock). Those are the three clocks (wait, stream,
// tail), headers, first byte and event, the second token, TTFO when it
// differs, the gap distribution with its n, stalls, tokens, ITL, tokens
// per second per user and held time. Undefined figures are "—". When
// height is short of ClocksHeight, the last line names the rows left out.
func ClocksPanel(c Clocks, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	rows, showAll := clockTable(c, width)
	labelW, thisW := clockLabelW, 0
	for _, row := range rows {
		thisW = max(thisW, len([]rune(row.this)))
	}
	var lines []string
	if showAll {
		lines = append(lines, strings.Repeat(" ", labelW)+st.Label.Render(textfmt.PadRight("this run", thisW+2)+
			fmt.Sprintf("all %d runs · p50 (n)", c.All.Streams.Attempted)))
	}
	for _, row := range rows {
		l := st.Label.Render(textfmt.PadRight(row.label, labelW)) + value(row.this, st)
		if showAll {
			l += strings.Repeat(" ", thisW+2-len([]rune(row.this))) + value(row.all, st)
		}
		lines = append(lines, l)
	}
	if len(lines) > height {
		var cut []string
		for _, row := range rows[len(rows)-(len(lines)-height+1):] {
			cut = append(cut, row.label)
		}
		lines = append(lines[:height-1], st.Undefined.Render(notShown(cut, width)))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// notShown names the rows left out in width cells. As many as fit are
// named whole and the rest are counted, as in
// `not shown: tok/s per user, headers, +2 more`. Cut at the width
// instead, it would end "headers, fir…".
func notShown(labels []string, width int) string {
	for n := len(labels); n > 0; n-- {
		s := "not shown: " + strings.Join(labels[:n], ", ")
		if n < len(labels) {
			s += fmt.Sprintf(", +%d more", len(labels)-n)
		}
		if textfmt.Width(s) <= width {
			return s
		}
	}
	return stats.Count(len(labels), "row") + " not shown"
}

// ClocksHeight is the number of lines ClocksPanel draws at width when
// given the rows. It varies with the stream (TTFO, held) and with the
// all-runs column's header.
func ClocksHeight(c Clocks, width int) int {
	if c.Record == nil || c.This == nil { // no stream yet, so the rows it will have
		c.Record, c.This = &record.Record{}, &stats.Summary{}
	}
	rows, showAll := clockTable(c, width)
	if showAll {
		return len(rows) + 1
	}
	return len(rows)
}

// clockTable is the panel's rows and whether they carry the all-runs
// column (two runs or more, and the width for it).
func clockTable(c Clocks, width int) ([]clockRow, bool) {
	showAll := c.All != nil && width >= ClocksAllWidth
	var rows []clockRow
	for _, m := range clockMetrics() {
		rows = append(rows, clockRows(c, m, showAll, width-clockLabelW)...)
	}
	return rows, showAll
}

// clockMetrics are the registry's metrics on the panel, in panel order.
func clockMetrics() []stats.Metric {
	var out []stats.Metric
	for _, m := range stats.Registry {
		if m.Clock > 0 {
			out = append(out, m)
		}
	}
	slices.SortStableFunc(out, func(a, b stats.Metric) int { return a.Clock - b.Clock })
	return out
}

// clockRows are a metric's rows, its p50 for this run and p50 (n) over all
// runs. The panel says more for some (gaps, tokens, ITL) and leaves out a
// figure that adds nothing (TTFO equal to TTFT, held with no server
// timing). It pairs others (TTFT's path and server parts). room is the
// width beside the label.
func clockRows(c Clocks, m stats.Metric, showAll bool, room int) []clockRow {
	r, this := c.Record, c.This.Metrics[m.JSON]
	all := func(f func(*stats.Summary) string) string {
		if !showAll {
			return ""
		}
		return f(c.All)
	}
	row := clockRow{m.ClockLabel, figure(m, this.P50), all(func(s *stats.Summary) string { return withN(m, s.Metrics[m.JSON]) })}
	switch m.Key {
	case stats.TTFO.Key:
		if r.TTFOMS == nil || (r.TTFTMS != nil && *r.TTFOMS == *r.TTFTMS) {
			return nil
		}
	case stats.Held.Key:
		if r.HeldMS == nil && (!showAll || c.All.Metrics[m.JSON].N == 0) {
			return nil
		}
	case stats.Gap.Key:
		return gapRows(c, this, all, room)
	case stats.OutputTokens.Key:
		tokens := "—" // nothing to count, with no usage report and no content
		if stats.HasTokenCount(r) {
			tokens = fmt.Sprintf("%d %s", r.OutputTokens, r.TokensSource)
		}
		return []clockRow{
			{"tokens", tokens, all(func(s *stats.Summary) string { return countWithN(s.Metrics[m.JSON]) })},
			{"tokens/frame", perFrame(r, room), ""},
		}
	case stats.ITL.Key:
		row.this = itl(r, this)
	case stats.TTFTPath.Key: // TTFT split at the headers, the path's part / the server's
		row.this = pair(this.P50, stats.TTFTServer.Of(c.This.Metrics).P50)
		row.all = all(func(s *stats.Summary) string {
			return pair(s.Metrics[m.JSON].P50, stats.TTFTServer.Of(s.Metrics).P50)
		})
	}
	return []clockRow{row}
}

// gapRows are the gap distribution's n, p50 p95, p99 max, the stalls,
// and the freezes when this stream or any run stuttered.
func gapRows(c Clocks, g stats.Dist, all func(func(*stats.Summary) string) string, room int) []clockRow {
	rows := []clockRow{
		{"gaps", fmt.Sprintf("n %d", g.N), all(func(s *stats.Summary) string { return fmt.Sprintf("n %d", stats.Gap.Of(s.Metrics).N) })},
		{"gap p50 p95", pair(g.P50, g.P95), all(func(s *stats.Summary) string { return pair(stats.Gap.Of(s.Metrics).P50, stats.Gap.Of(s.Metrics).P95) })},
		{"gap p99 max", pair(g.P99, g.Max), all(func(s *stats.Summary) string { return pair(stats.Gap.Of(s.Metrics).P99, stats.Gap.Of(s.Metrics).Max) })},
		{"stalls", thisStalls(c, room), all(func(s *stats.Summary) string { return stalls(&s.Stalls) })},
	}
	if f := c.Record.Delivery; (f == nil || f.Freezes == nil) && (c.All == nil || c.All.Freezes.Streams == 0) {
		return rows
	}
	return append(rows, clockRow{"freezes", thisFreezes(c.Record, room), all(func(s *stats.Summary) string {
		return fmt.Sprintf("%d in %s", s.Freezes.Count, stats.Count(s.Freezes.Streams, "stream"))
	})})
}

// thisFreezes is the stream's freezes (stutter delivery, counted under
// the stall threshold too) with its period and the longest, said shorter
// when room is short of it. It is 0 for a stream that did not stutter.
func thisFreezes(r *record.Record, room int) string {
	d := r.Delivery
	if d == nil || d.Freezes == nil || d.PeriodMS == nil {
		return "0"
	}
	f := d.Freezes
	long := fmt.Sprintf("%d · every %s · longest %s", f.Count, textfmt.OptMS(d.PeriodMS), textfmt.OptMS(&f.LongestMS))
	if textfmt.Width(long) <= room {
		return long
	}
	return fmt.Sprintf("%d · every %s", f.Count, textfmt.OptMS(d.PeriodMS))
}

// figure is a value in the metric's unit, times in ms and rates bare.
func figure(m stats.Metric, v *float64) string {
	if m.Unit == "ms" {
		return textfmt.OptMS(v)
	}
	return textfmt.Num(v)
}

func value(s string, st *Styles) string {
	if s == "—" || strings.HasPrefix(s, "— ") {
		return st.Undefined.Render(s)
	}
	return st.Value.Render(s)
}

func pair(a, b *float64) string {
	if a == nil {
		return "—"
	}
	return textfmt.OptMS(a) + " / " + textfmt.OptMS(b)
}

// withN is a run's p50 in the metric's unit and its n, "180 ms (2)".
func withN(m stats.Metric, d stats.Dist) string {
	if d.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%d)", figure(m, d.P50), d.N)
}

// countWithN is withN for a count. A whole p50 prints whole, "38 (2)" and
// not "38.00 (2)". The median of an even n may keep its .5.
func countWithN(d stats.Dist) string {
	if d.N == 0 || d.P50 == nil || *d.P50 != math.Trunc(*d.P50) {
		return withN(stats.Metric{}, d)
	}
	return fmt.Sprintf("%.0f (%d)", *d.P50, d.N)
}

// stalls counts stalls. The longest is the gap max beside it.
func stalls(s *stats.Stalls) string {
	return fmt.Sprintf("%d (%d mid-sentence)", s.Count, s.MidSentence)
}

// thisStalls is the stream's stalls, the one in progress counted and said
// to be ("2 (1 in progress, 1 mid-sentence)"), said shorter when room
// (25 columns on an 80-column screen) is short of it. Whether it is
// mid-sentence is known already, since the rule looks at the text before it.
func thisStalls(c Clocks, room int) string {
	s := &c.This.Stalls
	if !c.Stalling {
		return stalls(s)
	}
	mid := s.MidSentence
	if stats.StopsMidSentence(c.Record) {
		mid++
	}
	for _, f := range []string{"%d (1 in progress, %d mid-sentence)", "%d (1 in progress, %d mid)"} {
		if l := fmt.Sprintf(f, s.Count+1, mid); textfmt.Width(l) <= room {
			return l
		}
	}
	return fmt.Sprintf("%d (1 in progress)", s.Count+1)
}

// perFrame is the tokens per content frame and the frames that came in
// bursts, said shorter when room (the 40-column panel of an 80-column
// screen) is short of the whole.
func perFrame(r *record.Record, room int) string {
	s := textfmt.Num(r.TokensPerFrame)
	if r.CoalescedFrames == 0 {
		return s
	}
	if long := s + fmt.Sprintf(" · %d frames in bursts", r.CoalescedFrames); textfmt.Width(long) <= room {
		return long
	}
	return s + fmt.Sprintf(" · %d in bursts", r.CoalescedFrames)
}

// itl is the stream's ITL, or why it is withheld. It is withheld for the
// delivery rule that made the stream buffered, or for a stutter whose
// first content was held.
func itl(r *record.Record, d stats.Dist) string {
	if r.Buffered && r.Delivery != nil && r.Delivery.Rule != "" {
		return "— buffered (" + r.Delivery.Rule + ")"
	}
	if r.Delivery != nil && r.Delivery.Class == record.DeliveryStutter && stats.WithholdsITL(r.Delivery) {
		return "— stutter, first held"
	}
	return textfmt.OptMS(d.P50)
}
