// Package report renders a run's summary for people and machines without a
// terminal UI, as the plain text report, CSV and JSON.
package report

import (
	"cmp"
	"fmt"
	"io"
	"maps"
	"slices"
	"strconv"
	"strings"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// Width is the width the text report keeps to, an 80-column terminal.
const Width = 80

// Para writes text as lines of at most Width columns, broken at spaces
// only (a hyphenated word stays whole). The first line goes after first,
// the rest after indent. A word longer than a line gets a line of its own.
func Para(w io.Writer, first, indent, text string) {
	for _, l := range textfmt.Lines(textfmt.KeepUnits(strings.Fields(text)), " ", Width, first, indent) {
		fmt.Fprintln(w, l)
	}
}

type metricRow struct {
	name string
	d    stats.Dist
	num  func(*float64) string // the figure's form: a time as textfmt.OptMS, a count whole
}

// rows lists the summary's distributions of the text report in registry
// order with their labels.
func rows(m stats.Metrics) []metricRow {
	var out []metricRow
	for _, reg := range stats.Registry {
		if reg.Out&stats.InText != 0 {
			out = append(out, metricRow{reg.Label, m[reg.JSON], figureForm(reg.Unit)})
		}
	}
	return out
}

// figureForm is how a figure in unit prints: a time as every report
// prints one (181 ms), a count whole, anything else as textfmt.Num.
func figureForm(unit string) func(*float64) string {
	switch unit {
	case "ms":
		return textfmt.OptMS
	case "":
		return textfmt.Whole
	}
	return textfmt.Num
}

// Text writes the human report of a summary, its conventions included.
func Text(w io.Writer, s *stats.Summary) { text(w, s, true) }

// TextBody is Text without the conventions block, for an output of
// several summaries that says the conventions once (Conventions).
func TextBody(w io.Writer, s *stats.Summary) { text(w, s, false) }

// Figures is the report's figures alone (-q). It writes the accounting (a failed
// stream is never left out), the table of distributions, stalls, tokens,
// throughput and goodput, then the gates' verdicts.
func Figures(w io.Writer, s *stats.Summary) {
	streamsText(w, s)
	fmt.Fprintln(w)
	distText(w, s)
	figuresText(w, s)
	gatesText(w, s)
}

// Conventions writes how every figure of a summary was computed, the
// percentiles, what TTFT is, what is excluded.
func Conventions(w io.Writer, c stats.Conventions) {
	fmt.Fprintln(w)
	Para(w, "conventions: ", "  ", "percentiles "+c.Percentiles+".")
	Para(w, "  TTFT = ", "  ", c.TTFT+".")
	Para(w, "  excluded: ", "  ", c.Excluded+".")
}

func text(w io.Writer, s *stats.Summary, conventions bool) {
	headText(w, s)
	distText(w, s)
	figuresText(w, s)
	workloadText(w, s)
	if len(s.Server) > 0 {
		fmt.Fprintln(w, "\nserver-reported (the server's own clock, not measured by drip):")
		for _, k := range slices.Sorted(maps.Keys(s.Server)) {
			d := s.Server[k]
			fmt.Fprintf(w, "  %-26s n=%d p50 %s  max %s\n", sanitize.Line(k), d.N, textfmt.Whole(d.P50), textfmt.Whole(d.Max))
		}
	}
	for _, d := range s.Diagnosis {
		Para(w, "hint      ", "          ", d.Shape+": "+d.Hint+" ("+d.Evidence+")")
	}
	if c := s.Client; c != nil && c.OS != nil && !c.OS.Available {
		Para(w, "client    ", "          ", c.OS.Note) // a starved client cannot be ruled out
	}
	if conventions {
		Conventions(w, s.Conventions)
	}
	gatesText(w, s)
}

// gatesText is the gates' verdicts under their heading, when there are some.
func gatesText(w io.Writer, s *stats.Summary) {
	if len(s.Gates) > 0 {
		fmt.Fprintln(w, "\ngates:")
		GateLines(w, s.Gates)
	}
}

// headText is the target and the accounting.
func headText(w io.Writer, s *stats.Summary) {
	wl := &s.Workload
	fmt.Fprintf(w, "drip · %s · format %s", sanitize.Line(wl.Target), sanitize.Line(wl.Format))
	if wl.Model != "" {
		fmt.Fprintf(w, " · model %s", sanitize.Line(wl.Model))
	}
	fmt.Fprintln(w)
	streamsText(w, s)
	Para(w, "warmup    ", "          ", warmupLine(s.Streams.Warmup, wl))
	fmt.Fprintln(w)
}

// streamsText is the accounting, under a warning when the server's
// certificate was not verified. -q keeps both.
func streamsText(w io.Writer, s *stats.Summary) {
	if s.Workload.TLSInsecure {
		fmt.Fprintln(w, "WARNING   TLS certificate NOT verified (-k/--insecure): these figures may be another server's")
	}
	st := &s.Streams
	Para(w, "streams   ", "          ", fmt.Sprintf("%d attempted · %d admitted · %d completed · %d failed%s",
		st.Attempted, st.Admitted, st.Completed, st.Failed, ByClass(st.FailedBy)))
	fmt.Fprintf(w, "          %d incomplete · %d canceled · %d buffered\n", st.Incomplete, st.Canceled, st.Buffered)
	failuresText(w, st.FailedMessages)
}

// failuresText is the failed streams' own words, each class's most
// frequent messages counted, so a run under load says why as a single
// stream does.
func failuresText(w io.Writer, msgs []stats.FailureMessage) {
	head := "failures  "
	for _, m := range msgs {
		text := cmp.Or(sanitize.Line(m.Message), "(no message)")
		Para(w, head, "            ", fmt.Sprintf("%s ×%d: %s", sanitize.Line(m.Class), m.Count, text))
		head = "          "
	}
}

// warmupLine is the report's warmup line, the streams left out and the
// rule that left them out (which says they are excluded), or none when
// none were planned or recorded.
func warmupLine(n int, wl *stats.Workload) string {
	if n == 0 && wl.Warmup == 0 {
		return "none"
	}
	count := stats.Count(n, "stream")
	if wl.WarmupRule == "" {
		return count + ", excluded from every figure"
	}
	return count + ": " + sanitize.Line(wl.WarmupRule)
}

// distText is the table of distributions, held time when the server
// gave it.
func distText(w io.Writer, s *stats.Summary) {
	cells := [][]string{{"", "n", "min", "p50", "p90", "p95", "p99", "max", "mean"}}
	notes := map[int][2]string{} // a row's explanation, under it
	line := func(r metricRow) {
		d := r.d
		cells = append(cells, []string{r.name, strconv.Itoa(d.N),
			r.num(d.Min), r.num(d.P50), r.num(d.P90), r.num(d.P95), r.num(d.P99), r.num(d.Max), r.num(d.Mean)})
	}
	for _, r := range rows(s.Metrics) {
		line(r)
	}
	if d := stats.Held.Of(s.Metrics); d.N > 0 {
		line(metricRow{stats.Held.Label, d, textfmt.OptMS})
		notes[len(cells)-1] = [2]string{"  held = ", "TTFT − the server's own time to its first token: how long the first token was in transit"}
	}
	if d := stats.ReaderLag.Of(s.Metrics); d.N > 0 {
		line(metricRow{stats.ReaderLag.Label, d, textfmt.OptMS})
		notes[len(cells)-1] = [2]string{"  reader lag = ", "a read's stamp − the kernel's receive time of the newest segment it took: how late drip's reader took what had arrived (n: reads)"}
	}
	// 76 columns at the least, so the table fits a terminal of 80; a
	// column grows where a figure is wider.
	widths := cellWidths(cells, []int{14, 5, 7, 7, 7, 7, 7, 7, 7})
	for i, row := range cells {
		fmt.Fprintln(w, alignRow(row, widths, 1))
		if n, ok := notes[i]; ok {
			Para(w, n[0], "    ", n[1])
		}
	}
	fmt.Fprintln(w)
}

// cellWidths are each column's width, its widest cell's or least's.
func cellWidths(rows [][]string, least []int) []int {
	widths := textfmt.ColumnWidths(rows)
	for j := range widths {
		widths[j] = max(widths[j], least[j])
	}
	return widths
}

// alignRow lays out a row in widths, sep spaces apart: the first cell
// padded on the right, the figures right-aligned.
func alignRow(row []string, widths []int, sep int) string {
	var b strings.Builder
	for j, c := range row {
		if j == 0 {
			b.WriteString(textfmt.PadRight(c, widths[j]))
			continue
		}
		b.WriteString(strings.Repeat(" ", sep) + textfmt.PadLeft(c, widths[j]))
	}
	return b.String()
}

// figuresText is stalls, tokens, throughput, input tokens, goodput and the
// connection ramp.
func figuresText(w io.Writer, s *stats.Summary) {
	sl := &s.Stalls
	longest := "none"
	if sl.LongestMS != nil {
		longest = textfmt.MS(*sl.LongestMS)
	}
	fmt.Fprintf(w, "stalls    %d (%d mid-sentence) in %s · longest %s · threshold %s\n",
		sl.Count, sl.MidSentence, stats.Count(sl.StreamsWithStall, "stream"), longest, textfmt.MS(sl.ThresholdMS))
	if f := &s.Freezes; f.Streams > 0 {
		Para(w, "freezes   ", "          ", fmt.Sprintf("%d in %s that stuttered (bursts every %s–%s) · longest %s · "+
			"counted whatever the stall threshold · first content held in %d (ITL withheld)",
			f.Count, stats.Count(f.Streams, "stream"), textfmt.OptMS(f.PeriodMinMS), textfmt.OptMS(f.PeriodMaxMS), textfmt.OptMS(f.LongestMS), f.FirstHeld))
	}
	if s.TokensApproxPct != nil {
		fmt.Fprintf(w, "tokens    from usage reports in %s%% of streams with a token count,\n          approximated (1 per content frame) in %s%%\n",
			textfmt.FormatFloat(100-*s.TokensApproxPct), textfmt.FormatFloat(*s.TokensApproxPct))
	}
	tp := &s.Throughput
	if tp.TokensPerS != nil {
		fmt.Fprintf(w, "throughput %s tok/s (%d tokens over a %s window)\n           mean of per-stream tps/user %s\n",
			textfmt.FormatFloat(*tp.TokensPerS), tp.OutputTokens, textfmt.MS(*tp.WindowMS), textfmt.Num(tp.MeanTPSUser))
		if tp.Runs > 1 {
			Para(w, "           ", "           ", fmt.Sprintf("the window lays %d runs over each other, each from its own first request "+
				"(hosts' clocks are never compared): their combined rate if they ran at the same time", tp.Runs))
		}
	} else {
		fmt.Fprintln(w, "throughput — (no completed stream)")
	}
	if in := stats.InputTokens.Of(s.Metrics); in.N > 0 {
		Para(w, "prompts   ", "          ", fmt.Sprintf("input tokens from the server's usage: p50 %s · min %s · max %s (n=%d)",
			textfmt.Whole(in.P50), textfmt.Whole(in.Min), textfmt.Whole(in.Max), in.N))
	}
	if g := s.Goodput; g != nil {
		Para(w, "goodput   ", "          ", fmt.Sprintf("%s%% (%d of %d streams completed and met %s) · %s good streams/s",
			textfmt.Num(g.Pct), g.Met, g.Of, sanitize.Line(g.SLO), textfmt.Num(g.PerS)))
	}
	if line := WitnessText(s.Witness); line != "" {
		Para(w, "kernel    ", "          ", line)
	}
	if c := s.ConnectRamp; c != nil {
		Para(w, "ramp      ", "          ", fmt.Sprintf("%d of %d streams waited for a turn to connect: wait p50 %s p99 %s max %s (their times start after it)",
			c.Waited, s.Streams.Attempted, textfmt.OptMS(c.Wait.P50), textfmt.OptMS(c.Wait.P99), textfmt.OptMS(c.Wait.Max)))
	}
}

// ByClass is failed streams by error class, most first, in parentheses
// after a count ("" when none).
func ByClass(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := slices.SortedFunc(maps.Keys(m), func(a, b string) int { return cmp.Or(m[b]-m[a], strings.Compare(a, b)) })
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = fmt.Sprintf("%s %d", sanitize.Line(k), m[k])
	}
	return " (" + strings.Join(parts, ", ") + ")"
}

// workloadText prints the prompt order, the open loop's two views and the
// per-prompt breakdown.
func workloadText(w io.Writer, s *stats.Summary) {
	if s.Workload.Order != "" {
		fmt.Fprintf(w, "order     %s\n", s.Workload.Order)
	}
	if l := s.Workload.LengthWords(); l != "" {
		fmt.Fprintf(w, "asked     %s\n", sanitize.Line(l))
	}
	if ol := s.OpenLoop; ol != nil {
		verdict := "within"
		if ol.ClientLimited {
			verdict = "OVER: client-limited"
		}
		lag := &ol.ScheduleLag
		fmt.Fprintf(w, "\nopen loop %s arrivals at %s/s · %d not admitted (over %d in flight)\n",
			s.Workload.ArrivalWords(), textfmt.FormatFloat(s.Workload.Rate), ol.NotAdmitted, s.Workload.MaxInflight)
		fmt.Fprintf(w, "  schedule lag p50 %s p99 %s max %s (n=%d)\n  schedule lag bound p99 %s: %s\n",
			textfmt.OptMS(lag.P50), textfmt.OptMS(lag.P99), textfmt.OptMS(lag.Max), lag.N, textfmt.MS(ol.LagBoundMS), verdict)
		Para(w, "  late arrivals: ", "    ", ol.CatchUp)
		openLoopTable(w, s)
	}
	if len(s.PerPrompt) > 1 {
		promptTable(w, s.PerPrompt)
	}
}

// openLoopTable is ttft and e2e from send and from the intended start,
// and the client's queue between them.
func openLoopTable(w io.Writer, s *stats.Summary) {
	ol := s.OpenLoop
	cells := [][]string{{"", "n", "p50", "p90", "p99", "max"}}
	for _, r := range []metricRow{
		{name: "ttft, from send (service)", d: stats.TTFT.Of(s.Metrics)}, {name: "ttft, from intended (user)", d: ol.TTFTUser},
		{name: "e2e, from send (service)", d: stats.E2E.Of(s.Metrics)}, {name: "e2e, from intended (user)", d: ol.E2EUser},
		{name: "client queue (difference)", d: ol.ClientQueue},
	} {
		cells = append(cells, []string{r.name, strconv.Itoa(r.d.N), textfmt.OptMS(r.d.P50), textfmt.OptMS(r.d.P90), textfmt.OptMS(r.d.P99), textfmt.OptMS(r.d.Max)})
	}
	widths := cellWidths(cells, []int{29, 5, 9, 9, 9, 9})
	for _, row := range cells {
		fmt.Fprintln(w, "  "+alignRow(row, widths, 1))
	}
}

// promptTable is the per-prompt breakdown, a prompt's id in 12 columns.
func promptTable(w io.Writer, prompts []stats.PromptStats) {
	cells := [][]string{{"prompt", "streams", "completed", "failed", "ttft p50", "ttft p99", "e2e p50", "itl p50", "tokens"}}
	for _, p := range prompts {
		cells = append(cells, []string{PromptCell(p.ID), strconv.Itoa(p.Streams), strconv.Itoa(p.Completed), strconv.Itoa(p.Failed),
			textfmt.OptMS(p.TTFT.P50), textfmt.OptMS(p.TTFT.P99), textfmt.OptMS(p.E2E.P50), textfmt.OptMS(p.ITL.P50), textfmt.Whole(p.OutputTokens.P50)})
	}
	widths := cellWidths(cells, []int{12, 7, 9, 6, 8, 8, 7, 7, 6})
	fmt.Fprintln(w)
	for _, row := range cells {
		fmt.Fprintln(w, alignRow(row, widths, 1))
	}
	fmt.Fprintln(w, "  tokens: output tokens p50")
}

// PromptCell is a prompt id in the per-prompt table's 12 columns, padded
// by display width (a wide rune takes two) and cut with … when longer, so
// the figures after it stay aligned.
func PromptCell(id string) string { return textfmt.FitLeft(sanitize.Line(id), 12) }

// GateLines prints each gate's verdict on its own line.
func GateLines(w io.Writer, gates []stats.GateResult) {
	for _, g := range gates {
		fmt.Fprintf(w, "  %s %s — %s\n", GateMark(g.Tripped), g.Expr, g.Message)
	}
}

// GateMark is a verdict's mark in a text report, ok or FAIL, one width.
func GateMark(tripped bool) string {
	if tripped {
		return "FAIL"
	}
	return "ok  "
}

// WitnessText is the client kernel's account of the streams in one line
// (stats.WitnessSummary). It gives the reads and their segments, the merges on
// either side of the socket, loss and the round trip. "" without streams.
func WitnessText(ws *stats.WitnessSummary) string {
	switch {
	case ws == nil:
		return ""
	case ws.Streams == 0:
		return ws.Note
	}
	perRead := "—"
	if ws.Reads > 0 {
		perRead = textfmt.FormatFloat(float64(ws.Segments) / float64(ws.Reads))
	}
	return fmt.Sprintf("%d reads in %d segments (%s a read) over %s · merged by the reader %d, before the socket %d (content reads of several frames) · "+
		"%d out-of-order segments received, %d retransmits · %d late readers · min rtt p50 %s",
		ws.Reads, ws.Segments, perRead, stats.Count(ws.Streams, "witnessed stream"), ws.ReaderMerges, ws.SocketMerges,
		ws.OutOfOrder, ws.Retransmits, ws.Late, textfmt.OptMS(ws.MinRTT.P50))
}
