package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/report"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// targetRecords is where the records of several targets go: one --out
// file per target (targetPath), one --csv for all, and each target's
// records kept for the summaries and the comparison printed at the end.
type targetRecords struct {
	mu     sync.Mutex
	runIDs map[string]int // a target's run ID → its index
	files  []*probe.Writer
	csv    func(*record.Record) error
	closes []func() error
	recs   [][]*record.Record
	err    error
}

func openTargetRecords(ts []target, out *outputFlags) (*targetRecords, error) {
	s := &targetRecords{runIDs: map[string]int{}, recs: make([][]*record.Record, len(ts))}
	if out.out != "" {
		for i := range ts {
			w, err := probe.Create(targetPath(out.out, i))
			if err != nil {
				s.close()
				return nil, cannotErr(fmt.Errorf("--out: %w", err))
			}
			s.files = append(s.files, w)
			s.closes = append(s.closes, w.Close)
		}
	}
	if out.csv != "" {
		write, closeCSV, err := openCSV(out.csv)
		if err != nil {
			s.close()
			return nil, err
		}
		s.csv, s.closes = write, append(s.closes, closeCSV)
	}
	return s, nil
}

// add files a finished record under its target; streams of several
// targets end at once, on their own goroutines.
func (s *targetRecords) add(r *record.Record) {
	s.mu.Lock()
	defer s.mu.Unlock()
	i := s.runIDs[r.RunID]
	s.recs[i] = append(s.recs[i], r)
	keep := func(err error) {
		if err != nil && s.err == nil {
			s.err = err
		}
	}
	if s.files != nil {
		keep(s.files[i].Write(r))
	}
	if s.csv != nil {
		keep(s.csv(r))
	}
}

func (s *targetRecords) close() {
	for _, c := range s.closes {
		c()
	}
}

// sources are the targets as live-view sources, each with its run ID.
func (s *targetRecords) sources(ts []target) []tui.Source {
	srcs := make([]tui.Source, len(ts))
	for i, t := range ts {
		runID := probe.NewRunID()
		s.runIDs[runID] = i
		srcs[i] = tui.Source{Name: t.name, Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
			rec := &record.Record{RunID: runID, Seq: seq, Phase: record.PhaseMeasure, PromptID: "p0"}
			return probe.Stream(ctx, t.t, t.o, rec, observe)
		}}
	}
	return srcs
}

// watchTargets races several targets with one prompt: on the targets
// screen until the user quits, or headless one stream per target. Then it
// prints each target's summary and the comparison of their runs.
func watchTargets(ctx context.Context, stdout, stderr io.Writer, ts []target, out *outputFlags, alternate bool) error {
	recs, err := openTargetRecords(ts, out)
	if err != nil {
		return err
	}
	defer recs.close()
	srcs := recs.sources(ts)
	stallMS := ts[0].o.StallMS
	if useTUI(out) {
		m := tui.NewTargets(ctx, tui.Config{Sources: srcs, StallMS: stallMS, Sink: recs.add, Color: os.Getenv("NO_COLOR") == ""}, alternate)
		if err := runProgram(ctx, m); err != nil {
			return err
		}
	} else {
		oneRound(ctx, srcs, recs.add, alternate)
	}
	if recs.err != nil {
		return cannotErr(fmt.Errorf("writing records: %w", recs.err))
	}
	return reportTargets(stdout, stderr, ts, recs, stallMS, out, func(_ int, r *record.Record) stats.Workload { return watchWorkload(r) })
}

// oneRound sends the prompt to every target once, at once or in turn.
func oneRound(ctx context.Context, srcs []tui.Source, sink func(*record.Record), alternate bool) {
	var wg sync.WaitGroup
	for _, src := range srcs {
		if alternate {
			sink(src.Stream(ctx, 0, func(probe.Event) {}))
			continue
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			sink(src.Stream(ctx, 0, func(probe.Event) {}))
		}()
	}
	wg.Wait()
}

// reportTargets prints every target's summary under its letter, then the
// comparison of their runs against the first, and checks the gates per
// target.
func reportTargets(stdout, stderr io.Writer, ts []target, recs *targetRecords, stallMS float64, out *outputFlags, wl func(i int, r *record.Record) stats.Workload) error {
	inputs := make([]compare.Input, 0, len(ts))
	for i, t := range ts {
		fmt.Fprintf(stdout, "── %s %s ──\n", compare.Letter(i), t.name)
		if len(recs.recs[i]) == 0 {
			fmt.Fprintln(stdout, "no finished stream")
			continue
		}
		a := stats.NewAggregate(stallMS)
		for _, r := range recs.recs[i] {
			a.Add(r)
		}
		s := a.Summary(wl(i, recs.recs[i][0]))
		report.Text(stdout, &s)
		fmt.Fprintln(stdout)
		label := t.name
		if out.out != "" {
			label = targetPath(out.out, i)
		}
		inputs = append(inputs, compare.Input{Label: label, Records: recs.recs[i]})
	}
	if len(inputs) == len(ts) {
		if c, err := compare.New(inputs, compare.Options{}); err == nil {
			compare.Text(stdout, c)
		}
	}
	if out.out != "" {
		for i := range ts {
			fmt.Fprintf(stderr, "drip: %d records written to %s\n", len(recs.recs[i]), targetPath(out.out, i))
		}
	}
	var tripped error
	for i := range ts {
		if len(out.gates) > 0 {
			fmt.Fprintf(stderr, "gates for %s:\n", compare.Letter(i))
		}
		if err := checkGates(stderr, recs.recs[i], stallMS, out); err != nil {
			tripped = err
		}
	}
	return tripped
}
