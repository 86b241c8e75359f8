package pipeline

import (
	"encoding/json"
	"fmt"
	"io"
	"slices"

	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// Run says how a finished run is reported.
type Run struct {
	Stats       *stats.RunStats // the runner's own figures, or nil for records read from a file
	Workload    stats.Workload
	Gates       []stats.Gate
	JSON        bool          // the summary as one JSON object
	Names       string        // another tool's field names beside drip's in JSON (report.ToolNames)
	Markdown    bool          // a sweep's table as Markdown
	Quiet       bool          // the text report's figures alone (report.Figures)
	Sweep       *sweep.Result // a sweep's levels, once it has ended
	Interrupted bool          // the user stopped it (Ctrl-C, q)
	Target      string        // the redacted URL, for "no response from"
	// HTML, when set, gets the report as a web page too, from the
	// records its Sink was given.
	HTML *HTML
}

// Report prints the summary of a finished run on stdout, its gates
// judged, closes the sinks, and returns the exit the command ends with
// (Outcome).
func (p *Pipeline) Report(stdout, stderr io.Writer, r Run) error {
	if r.Stats != nil {
		p.agg.SetRun(*r.Stats)
	}
	r.Interrupted = r.Interrupted && p.Err() == nil // a failed write stops a run too
	if r.Interrupted {
		fmt.Fprintln(stderr, "drip: interrupted: stopped admitting and canceled the streams in flight; the report covers what was recorded")
	}
	s, tripped := p.summary(&r)
	printed := printRun(stdout, &s, &r)
	if printed == nil {
		printed = r.HTML.run(&s, r.Sweep)
	}
	werr := p.Err()
	cerr := p.Close()
	switch {
	case printed != nil:
		return Cannot(printed)
	case werr != nil:
		return Cannot(fmt.Errorf("writing records: %w: the run stopped at the first failed write; the report covers what was measured", werr))
	case cerr != nil:
		return Cannot(fmt.Errorf("writing records: %w: the report covers what was measured", cerr))
	}
	return p.Outcome(&s, r, tripped)
}

// summary is the run's summary with its gates judged, and whether one
// tripped.
func (p *Pipeline) summary(r *Run) (stats.Summary, bool) {
	s := p.agg.Summary(r.Workload)
	s.Workload.Format = p.found(s.Workload.Format)
	if r.Sweep != nil {
		// The levels say the load, and workload.runs is per level.
		s.Workload.Concurrency, s.Workload.Rate = 0, 0
	}
	return s, Judge(&s, r.Gates)
}

// Outcome is the exit a reported run ends with once its records are safe.
// It is 3 when no response came or no measured stream completed, then 1
// when a gate tripped. The 3 does not apply when the user stopped the run,
// nor to records from a file, whose exit was decided when the run ran.
func (p *Pipeline) Outcome(s *stats.Summary, r Run, tripped bool) error {
	switch {
	case r.Interrupted || r.Stats == nil:
	case !p.Reached() && s.Streams.Admitted > 0:
		return Cannot(fmt.Errorf("no response from %s: every stream failed before headers", r.Target))
	case s.Streams.Completed == 0:
		return p.noneCompleted(s)
	}
	if tripped {
		return ErrGateTripped
	}
	return nil
}

// noneCompleted is exit 3 for a run none of whose measured streams
// completed, with the failures by class and the server's most frequent
// words.
func (p *Pipeline) noneCompleted(s *stats.Summary) error {
	return Cannot(fmt.Errorf("no measured stream completed (%d attempted%s)%s", s.Streams.Attempted, p.failureClasses(), mostFrequent(s.Streams.FailedMessages)))
}

// mostFrequent quotes the failed streams' most frequent message, so the
// one line a script's log keeps says why as well as how many.
func mostFrequent(msgs []stats.FailureMessage) string {
	if len(msgs) == 0 {
		return ""
	}
	top := slices.MaxFunc(msgs, func(a, b stats.FailureMessage) int { return a.Count - b.Count })
	if top.Message == "" {
		return ""
	}
	return fmt.Sprintf(", most often %s: %s", sanitize.Line(top.Class), sanitize.Line(top.Message))
}

// Judge evaluates the gates over a summary, adding each verdict to it,
// and reports whether one tripped.
func Judge(s *stats.Summary, gates []stats.Gate) (tripped bool) {
	for _, g := range gates {
		r := g.Eval(s)
		tripped = tripped || r.Tripped
		s.Gates = append(s.Gates, r)
	}
	return tripped
}

// printRun writes the report. That is a sweep's Markdown table, the JSON
// summary, or the text report (with a sweep's table and plots).
func printRun(w io.Writer, s *stats.Summary, r *Run) error {
	switch {
	case r.Markdown && r.Sweep != nil:
		sweep.Markdown(w, r.Sweep)
	case r.JSON:
		var v any = s
		switch {
		case r.Sweep != nil:
			v = struct {
				stats.Summary
				Sweep *sweep.Result `json:"sweep"`
			}{*s, r.Sweep}
		case r.Names != "":
			b, err := report.NamedJSON(s, r.Names)
			if err != nil {
				return err
			}
			v = json.RawMessage(b)
		}
		return WriteJSON(w, v)
	case r.Quiet:
		report.Figures(w, s)
		WriteSweep(w, r.Sweep)
	default:
		report.Text(w, s)
		WriteSweep(w, r.Sweep)
	}
	return nil
}

// WriteJSON writes v as indented JSON, the form of every --json.
func WriteJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}

// WriteSweep adds a sweep's table, knee and plots by level to a text
// report (nothing without a sweep), within 80 columns.
func WriteSweep(w io.Writer, r *sweep.Result) {
	if r == nil {
		return
	}
	fmt.Fprintln(w)
	sweep.Text(w, r)
	fmt.Fprintln(w)
	sweep.TextPlots(w, r)
}

// GateLines prints each gate's verdict on its own line, for the reports
// that do not carry them (a live session's, several targets').
func GateLines(w io.Writer, s *stats.Summary, gates []stats.Gate) (tripped bool) {
	tripped = Judge(s, gates)
	report.GateLines(w, s.Gates)
	return tripped
}
