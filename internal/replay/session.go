package replay

import (
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/progress"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Session is a replay and its report. The recording is the baseline, the
// replayed records are kept for the comparison (and written as each ends,
// to --out), and the comparison is printed and judged by the gates.
type Session struct {
	Recorded compare.Input // the recording's streams to replay (Streams)
	Options  Options
	Gates    []stats.Gate
	Records  *pipeline.Pipeline // keeps the replayed records
	HTML     *pipeline.HTML     // --html, nil without
	Out      string             // --out, named as the replay's source
	Format   compare.Format     // how the comparison is printed
}

// Headless replays with a line per replayed stream on stderr, says how
// closely it kept to its schedule, then reports.
func (s *Session) Headless(ctx context.Context, stdout, stderr io.Writer) error {
	pl := s.Records
	s.Options.SayLag(stderr, Run(pl.StopOnWriteError(ctx), s.Recorded.Records, s.Options, func(r *record.Record) {
		pl.Add(r)
		fmt.Fprintln(stderr, "  "+progress.Line(r))
	}))
	return s.report(stdout)
}

// report prints the comparison of the replay with the recording and
// judges the gates. A failed write of the replayed records is exit 3.
func (s *Session) report(out io.Writer) error {
	pl := s.Records
	replayed := pl.Records()
	if len(replayed) == 0 {
		return pipeline.FirstErr(pl.Finish(), pipeline.Cannot(errors.New("no stream was replayed")))
	}
	c, err := comparison(s.Recorded, compare.Input{Label: "replayed", Source: s.Out, Records: replayed}, s.Gates)
	if err != nil {
		return pipeline.Cannot(err)
	}
	if err := s.HTML.Comparison(c); err != nil {
		return pipeline.FirstErr(pl.Finish(), err)
	}
	err = compare.Write(out, c, s.Format)
	if err != nil {
		err = pipeline.Cannot(err)
	} else if c.Tripped() {
		err = pipeline.ErrGateTripped
	}
	if werr := pl.Finish(); werr != nil {
		return werr
	}
	return pipeline.FirstErr(pl.NoneCompleted("replayed"), err)
}

// Live is the comparison while the replay fills it in on a screen, its
// records so far recs. final says it has ended, or the screen was left.
func (s *Session) Live(recs []*record.Record, final bool) *compare.Comparison {
	return LiveComparison(s.Recorded, recs, len(s.Recorded.Records), s.Options.Duration > 0, final, s.Gates)
}

// Ended reports a replay that ran on a screen. It says how closely it kept
// to its schedule (st), how much was replayed when the screen was left before
// the end (cut), and the verdicts of the final comparison on stdout.
func (s *Session) Ended(stdout, stderr io.Writer, st stats.RunStats, cut bool) error {
	pl := s.Records
	if err := pl.Finish(); err != nil {
		return err
	}
	s.Options.SayLag(stderr, st)
	if cut {
		of := fmt.Sprintf(" of %d", len(s.Recorded.Records))
		if s.Options.Duration > 0 {
			of = " before --duration ended"
		}
		fmt.Fprintf(stderr, "drip replay: stopped on the screen after %s%s: the comparison and the gates judge those\n",
			stats.Count(len(pl.Records()), "replayed stream"), of)
	}
	final := s.Live(pl.Records(), true)
	return pipeline.FirstErr(s.HTML.Comparison(final), pl.NoneCompleted("replayed"), pipeline.ComparisonVerdicts(stdout, final))
}
