package main

import (
	"context"
	"io"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/progress"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/sweep"
	"github.com/driplab/drip/tui"
)

// sweepFlags shape a sweep, how long each level runs and when to stop.
type sweepFlags struct {
	runsPerLevel     int
	durationPerLevel time.Duration
	stopWhen         []string
}

func (f *sweepFlags) register(fs *pflag.FlagSet, out *outputFlags) {
	fs.IntVar(&f.runsPerLevel, "runs-per-level", 0, "sweep: measured streams at each level (after its own warmup)")
	fs.DurationVar(&f.durationPerLevel, "duration-per-level", 0, "sweep: admit streams at each level for this long")
	fs.StringArrayVar(&f.stopWhen, "stop-when", nil, "sweep: end after the first level where this holds, e.g. 'failed_pct > 5', 'ttft.p95 > 2s' (repeatable)")
	fs.BoolVar(&out.markdown, "markdown", false, "sweep: print the per-level table as Markdown, for a pull request")
}

// sweepPlan reads the sweep flags. It returns nil when the run is no sweep
// (one level, no per-level flag). It sets base's runs and duration per level.
func (f *sweepFlags) sweepPlan(fs *pflag.FlagSet, load *workloadFlags, out *outputFlags, base *probe.Plan) (*sweep.Plan, error) {
	levels, kind := load.concurrencyLevels.Vals, sweep.KindConcurrency
	if base.Rate > 0 {
		levels, kind = load.rateLevels.Vals, sweep.KindRate
	}
	perLevel := fs.Changed("runs-per-level") || fs.Changed("duration-per-level")
	switch {
	case len(levels) < 2 && !perLevel && (len(f.stopWhen) > 0 || out.markdown):
		return nil, usageErr("--stop-when and --markdown belong to a sweep: give several levels, e.g. --concurrency 1,2,4,8")
	case len(levels) < 2 && !perLevel:
		return nil, nil
	case fs.Changed("runs") || fs.Changed("duration"):
		return nil, usageErr("a sweep runs each level for --runs-per-level N or --duration-per-level D, not --runs or --duration")
	case !perLevel:
		return nil, usageErr("a sweep needs --runs-per-level N or --duration-per-level D (how long each level runs)")
	}
	base.Runs, base.Duration = f.runsPerLevel, f.durationPerLevel
	sp := &sweep.Plan{Base: *base, Kind: kind, Levels: levels, SLO: out.slo}
	if err := sp.Validate(); err != nil {
		return nil, usageErr("%v", err)
	}
	if out.markdown && out.json {
		return nil, usageErr("--markdown and --json each print the report: pick one")
	}
	var err error
	if sp.StopWhen, err = sweep.ParseStopWhen(f.stopWhen, out.slo); err != nil {
		return nil, usageErr("%v", err)
	}
	return sp, nil
}

// runSweepHeadless carries out a sweep without a UI. It writes a line per
// level on stderr as it ends, records to --out/--csv, and the report (with
// the per-level table) on stdout.
func runSweepHeadless(ctx context.Context, stdout, stderr io.Writer, sp sweep.Plan, out *outputFlags) error {
	pl, err := beginSweep(ctx, stderr, &sp, out)
	if err != nil {
		return err
	}
	defer pl.Close()
	res, st := progress.Sweep(pl.StopOnWriteError(ctx), stderr, sp, pl.Add)
	return pl.Report(stdout, stderr, out.report(&sp.Base, &st, &res, ctx.Err() != nil))
}

// beginSweep is beginRun for a sweep, whose describing line names the
// levels.
func beginSweep(ctx context.Context, stderr io.Writer, sp *sweep.Plan, out *outputFlags) (*pipeline.Pipeline, error) {
	return beginRun(ctx, stderr, &sp.Base, out, func(*probe.Plan) string { return sp.Describe() })
}

// runSweepLive is a sweep on the run screen. The header shows the level in
// progress, and the per-level panel grows as levels end. Once the screen
// has closed, the report with the table goes to stdout as headless.
func runSweepLive(ctx context.Context, stdout, stderr io.Writer, sp sweep.Plan, out *outputFlags, opts ...tea.ProgramOption) error {
	pl, err := beginSweep(ctx, stderr, &sp, out)
	if err != nil {
		return err
	}
	defer pl.Close()
	// The screen's progress bar spans every level.
	shown := sp.Base
	shown.Runs *= len(sp.Levels)
	shown.Duration *= time.Duration(len(sp.Levels))
	rc := tui.RunConfig{Plan: shown, Workload: pipeline.WorkloadOf(&sp.Base, version), Load: sp.Describe(), Sweep: &sp}
	return runScreen(ctx, stdout, stderr, rc, &sp.Base, pl, out, opts...)
}
