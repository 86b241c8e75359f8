package main

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// openTargets opens a pipeline per target: a --out file each
// (pipeline.TargetPath), one --csv for all.
func openTargets(ts []target, out *outputFlags) (*pipeline.Targets, error) {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
	}
	return pipeline.NewTargets(names, ts[0].o.StallMS, out.out, out.csv)
}

// sources are the targets as live-view sources, each with its run ID.
func sources(ts []target, recs *pipeline.Targets) []tui.Source {
	srcs := make([]tui.Source, len(ts))
	for i, t := range ts {
		runID := probe.NewRunID()
		recs.Bind(runID, i)
		srcs[i] = tui.Source{Name: t.name, Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
			rec := &record.Record{RunID: runID, Seq: seq, Phase: record.PhaseMeasure, PromptID: probe.DefaultPromptID}
			return probe.Stream(ctx, t.t, t.o, rec, observe)
		}}
	}
	return srcs
}

// watchTargets races several targets with one prompt: on the targets
// screen until the user quits, or headless one stream per target. Then it
// prints each target's summary and the comparison of their runs.
func watchTargets(ctx context.Context, stdout, stderr io.Writer, ts []target, out *outputFlags, alternate bool) error {
	recs, err := openTargets(ts, out)
	if err != nil {
		return err
	}
	defer recs.Close()
	srcs := sources(ts, recs)
	if useTUI(out) {
		m := tui.NewTargets(ctx, tui.Config{Sources: srcs, StallMS: ts[0].o.StallMS, Sink: recs.Add, Color: os.Getenv("NO_COLOR") == "", Warning: screenWarning(ts[0].o)}, alternate)
		if err := runProgram(ctx, m); err != nil {
			return err
		}
	} else {
		oneRound(ctx, srcs, recs.Add, alternate)
	}
	wl := pipeline.SessionWorkload(version)
	return recs.Report(stdout, stderr, out.gates, func(_ int, r *record.Record) stats.Workload { return wl(r) })
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
