package views

import (
	"fmt"
	"strings"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/report"
	"github.com/driplab/drip/stats"
)

// Clocks is the input of the clocks panel. Every figure comes from a
// stats.Summary built by stats.Aggregate, the same function the headless
// report uses, so the two agree by construction.
type Clocks struct {
	Record *record.Record // the current stream
	This   *stats.Summary // the current stream alone
	All    *stats.Summary // every finished run, when there are two or more
}

// clockRow is a label and its figures for this run and for all runs.
type clockRow struct{ label, this, all string }

// ClocksPanel renders the three clocks (wait, stream, tail), first byte,
// TTFO when it differs, the gap distribution with its n, stalls, tokens,
// ITL and tokens per second per user. Undefined figures are "—".
func ClocksPanel(c Clocks, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	r, m := c.Record, &c.This.Metrics
	showAll := c.All != nil && width >= 64
	all := func(f func(*stats.Summary) string) string {
		if !showAll {
			return ""
		}
		return f(c.All)
	}
	rows := []clockRow{
		{"wait (ttft)", ms(m.TTFT.P50), all(func(s *stats.Summary) string { return withN(s.Metrics.TTFT) })},
		{"stream", ms(streamClock(r)), ""},
		{"tail", ms(m.Tail.P50), all(func(s *stats.Summary) string { return withN(s.Metrics.Tail) })},
		{"first byte", ms(m.FirstByte.P50), all(func(s *stats.Summary) string { return withN(s.Metrics.FirstByte) })},
	}
	if r.TTFOMS != nil && (r.TTFTMS == nil || *r.TTFOMS != *r.TTFTMS) {
		rows = append(rows, clockRow{"ttfo", ms(m.TTFO.P50), all(func(s *stats.Summary) string { return withN(s.Metrics.TTFO) })})
	}
	g := &m.Gap
	rows = append(rows,
		clockRow{"gaps", fmt.Sprintf("n %d", g.N), all(func(s *stats.Summary) string { return fmt.Sprintf("n %d", s.Metrics.Gap.N) })},
		clockRow{"gap p50 p95", pair(g.P50, g.P95), all(func(s *stats.Summary) string { return pair(s.Metrics.Gap.P50, s.Metrics.Gap.P95) })},
		clockRow{"gap p99 max", pair(g.P99, g.Max), all(func(s *stats.Summary) string { return pair(s.Metrics.Gap.P99, s.Metrics.Gap.Max) })},
		clockRow{"stalls", stalls(&c.This.Stalls), all(func(s *stats.Summary) string { return stalls(&s.Stalls) })},
		clockRow{"tokens", fmt.Sprintf("%d %s", r.OutputTokens, r.TokensSource), all(func(s *stats.Summary) string { return withN(s.Metrics.OutputTokens) })},
		clockRow{"tokens/frame", perFrame(r), ""},
		clockRow{"itl", itl(r, m), all(func(s *stats.Summary) string { return withN(s.Metrics.ITL) })},
		clockRow{"tok/s per user", report.Num(m.TPSUser.P50), all(func(s *stats.Summary) string { return withN(s.Metrics.TPSUser) })},
	)
	if r.HeldMS != nil || (showAll && c.All.Metrics.Held.N > 0) {
		rows = append(rows, clockRow{"held (server)", ms(m.Held.P50), all(func(s *stats.Summary) string { return withN(s.Metrics.Held) })})
	}
	labelW, thisW := 15, 0
	for _, row := range rows {
		thisW = max(thisW, len([]rune(row.this)))
	}
	var lines []string
	if showAll {
		lines = append(lines, strings.Repeat(" ", labelW)+st.Label.Render(padRight("this run", thisW+2)+
			fmt.Sprintf("all %d runs · p50 (n)", c.All.Streams.Attempted)))
	}
	for _, row := range rows {
		l := st.Label.Render(padRight(row.label, labelW)) + value(row.this, st)
		if showAll {
			l += strings.Repeat(" ", thisW+2-len([]rune(row.this))) + value(row.all, st)
		}
		lines = append(lines, l)
	}
	return Fit(strings.Join(lines, "\n"), width, height)
}

func value(s string, st *Styles) string {
	if s == "—" || strings.HasPrefix(s, "— ") {
		return st.Undefined.Render(s)
	}
	return st.Value.Render(s)
}

// streamClock is the second clock: first content to last content.
func streamClock(r *record.Record) *float64 {
	if r.TTFTMS == nil {
		return nil
	}
	v := lastContent(r) - *r.TTFTMS
	return &v
}

func ms(v *float64) string {
	if v == nil {
		return "—"
	}
	return report.FormatFloat(*v) + " ms"
}

func pair(a, b *float64) string {
	if a == nil {
		return "—"
	}
	return report.Num(a) + " / " + report.Num(b) + " ms"
}

func withN(d stats.Dist) string {
	if d.N == 0 {
		return "—"
	}
	return fmt.Sprintf("%s (%d)", report.Num(d.P50), d.N)
}

// stalls counts stalls; the longest is the gap max beside it.
func stalls(s *stats.Stalls) string {
	return fmt.Sprintf("%d (%d mid-sentence)", s.Count, s.MidSentence)
}

func perFrame(r *record.Record) string {
	s := report.Num(r.TokensPerFrame)
	if r.CoalescedFrames > 0 {
		s += fmt.Sprintf(" · %d frames in bursts", r.CoalescedFrames)
	}
	return s
}

// itl is the stream's ITL, or why it is withheld: the delivery rule that
// made the stream buffered.
func itl(r *record.Record, m *stats.Metrics) string {
	if r.Buffered && r.Delivery != nil && r.Delivery.Rule != "" {
		return "— buffered (" + r.Delivery.Rule + ")"
	}
	return ms(m.ITL.P50)
}
