package pipeline

import (
	"fmt"
	"io"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/report"
	"github.com/driplab/drip/stats"
)

// Session says how a live session (watch, demo, view on a terminal) is
// reported once its screen has closed.
type Session struct {
	Gates    []stats.Gate
	Out      string                              // the --out file, named on stderr
	Workload func(*record.Record) stats.Workload // a group's workload, from its first record
}

// ReportSession closes the sinks, prints the summary of every target and
// model in the order they first ran (the demo's scenarios are models), and
// judges the gates over all the records. Needs KeepRecords.
func (p *Pipeline) ReportSession(stdout, stderr io.Writer, s Session) error {
	if err := p.Finish(); err != nil {
		return err
	}
	recs := p.Records()
	p.printGroups(stdout, recs, s.Workload)
	if s.Out != "" {
		fmt.Fprintf(stderr, "drip: %d records written to %s\n", len(recs), s.Out)
	}
	if len(s.Gates) == 0 {
		return nil
	}
	sum := p.agg.Summary(stats.Workload{})
	if GateLines(stderr, &sum, s.Gates) {
		return ErrGateTripped
	}
	return nil
}

// printGroups prints a summary per target and model.
func (p *Pipeline) printGroups(w io.Writer, recs []*record.Record, wl func(*record.Record) stats.Workload) {
	type group struct {
		wl  stats.Workload
		agg *stats.Aggregate
	}
	var order []string
	groups := map[string]*group{}
	for _, r := range recs {
		k := r.Target + "\x00" + r.Model
		g := groups[k]
		if g == nil {
			g = &group{wl: wl(r), agg: stats.NewAggregate(p.stallMS)}
			groups[k] = g
			order = append(order, k)
		}
		g.agg.Add(r)
	}
	for i, k := range order {
		if i > 0 {
			fmt.Fprintln(w)
		}
		s := groups[k].agg.Summary(groups[k].wl)
		report.TextBody(w, &s)
		if i == len(order)-1 { // said once, after every summary
			report.Conventions(w, s.Conventions)
		}
	}
}
