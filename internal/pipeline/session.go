package pipeline

import (
	"fmt"
	"io"
	"text/tabwriter"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Session says how a live session (watch, demo, view on a terminal) is
// reported once its screen has closed.
type Session struct {
	Gates    []stats.Gate
	Out      string                              // the --out file, named on stderr
	Workload func(*record.Record) stats.Workload // a group's workload, from its first record
	// Table prints several groups (the demo's scenarios) as one table, a
	// row each, instead of a whole summary each (356 lines for a tour of
	// the demo). A single group keeps its summary.
	Table bool
}

// ReportSession closes the sinks, prints the summary of every target and
// model in the order they first ran (the demo's scenarios are models), and
// judges the gates over all the records. Its exit follows the streams as a
// headless run's does. It is 3 when every measured stream failed, unless
// the user stopped one. It needs KeepRecords.
func (p *Pipeline) ReportSession(stdout, stderr io.Writer, s Session) error {
	if err := p.Finish(); err != nil {
		return err
	}
	recs := p.Records()
	p.printGroups(stdout, recs, s)
	if s.Out != "" {
		fmt.Fprintf(stderr, "drip: %d records written to %s\n", len(recs), s.Out)
	}
	sum := p.agg.Summary(stats.Workload{})
	tripped := len(s.Gates) > 0 && GateLines(stderr, &sum, s.Gates)
	if st := sum.Streams; st.Attempted > 0 && st.Completed == 0 && st.Canceled == 0 {
		return p.noneCompleted(&sum)
	}
	if tripped {
		return ErrGateTripped
	}
	return nil
}

// printGroups prints a summary per target and model, or their table.
func (p *Pipeline) printGroups(w io.Writer, recs []*record.Record, s Session) {
	var sums []stats.Summary
	var aggs []*stats.Aggregate
	groups := map[string]int{}
	for _, r := range recs {
		k := r.Target + "\x00" + r.Model
		i, ok := groups[k]
		if !ok {
			i = len(aggs)
			groups[k] = i
			aggs = append(aggs, stats.NewAggregate(p.stallMS))
			sums = append(sums, stats.Summary{Workload: s.Workload(r)})
		}
		aggs[i].Add(r)
	}
	for i := range sums {
		sums[i] = aggs[i].Summary(sums[i].Workload)
	}
	if s.Table && len(sums) > 1 {
		groupTable(w, sums)
		return
	}
	for i := range sums {
		if i > 0 {
			fmt.Fprintln(w)
		}
		report.TextBody(w, &sums[i])
		if i == len(sums)-1 { // said once, after every summary
			report.Conventions(w, sums[i].Conventions)
		}
	}
}

// groupTable is a row per group. A row gives its name (the model, the
// demo's scenario, else the target) and its streams complete of attempted,
// so an incomplete or canceled stream never reads as a success. It then
// gives the figures a tour of the scenarios compares. Undefined figures
// are "—", never 0. Each time carries its unit, as every report prints
// one.
func groupTable(w io.Writer, sums []stats.Summary) {
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "model\tcomplete\tfailed\tttft p50\tgap p99\tstalls (mid)\te2e p50")
	for i := range sums {
		s := &sums[i]
		name := s.Workload.Model
		if name == "" {
			name = s.Workload.Target
		}
		fmt.Fprintf(tw, "%s\t%d/%d\t%d\t%s\t%s\t%d (%d)\t%s\n", name, s.Streams.Completed, s.Streams.Attempted, s.Streams.Failed,
			textfmt.OptMS(stats.TTFT.Of(s.Metrics).P50), textfmt.OptMS(stats.Gap.Of(s.Metrics).P99), s.Stalls.Count, s.Stalls.MidSentence, textfmt.OptMS(stats.E2E.Of(s.Metrics).P50))
	}
	tw.Flush()
}
