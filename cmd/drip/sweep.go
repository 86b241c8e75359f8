package main

import (
	"context"
	"fmt"
	"io"
	"math"
	"os"
	"sort"
	"strconv"
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/compare"
	"github.com/driplab/drip/internal/gctune"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sweep"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// levelsFlag is --concurrency or --rate: one value is a run at that load,
// a comma list (1,2,4,8) a sweep of them. Every value is checked as it is
// parsed, so a bad one is a usage error naming the flag.
type levelsFlag struct {
	vals  []float64
	whole bool // concurrency: whole numbers, at least 1
}

func (l *levelsFlag) String() string {
	s := make([]string, len(l.vals))
	for i, v := range l.vals {
		s[i] = sweep.LevelNum(v)
	}
	return strings.Join(s, ",")
}

func (l *levelsFlag) Type() string {
	if l.whole {
		return "N[,N...]"
	}
	return "R[,R...]"
}

func (l *levelsFlag) Set(s string) error {
	var vals []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("%q is not a finite number", part)
		case l.whole && (v < 1 || v != math.Trunc(v) || v > 1e6):
			return fmt.Errorf("%q: must be at least 1, a whole number of streams", part)
		case !l.whole && (v < probe.MinRate || v > probe.MaxRate):
			return fmt.Errorf("%q: must be a positive number of streams per second, from 0.001 to 1000000", part)
		case len(vals) > 0 && v <= vals[len(vals)-1]:
			return fmt.Errorf("%q: a sweep's levels must rise, e.g. 1,2,4,8", part)
		}
		vals = append(vals, v)
	}
	l.vals = vals
	return nil
}

// first is the flag's value outside a sweep (def when not given).
func (l *levelsFlag) first(def float64) float64 {
	if len(l.vals) == 0 {
		return def
	}
	return l.vals[0]
}

// sweepFlags shape a sweep: how long each level runs and when to stop.
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

// sweepPlan reads the sweep flags: nil when the run is no sweep (one
// level, no per-level flag). It sets base's runs and duration per level.
func (f *sweepFlags) sweepPlan(fs *pflag.FlagSet, load *workloadFlags, out *outputFlags, base *probe.Plan) (*sweep.Plan, error) {
	levels, kind := load.concurrencyLevels.vals, sweep.KindConcurrency
	if base.Rate > 0 {
		levels, kind = load.rateLevels.vals, sweep.KindRate
	}
	perLevel := fs.Changed("runs-per-level") || fs.Changed("duration-per-level")
	if len(levels) < 2 && !perLevel {
		if len(f.stopWhen) > 0 || out.markdown {
			return nil, usageErr("--stop-when and --markdown belong to a sweep: give several levels, e.g. --concurrency 1,2,4,8")
		}
		return nil, nil
	}
	switch {
	case fs.Changed("runs") || fs.Changed("duration"):
		return nil, usageErr("a sweep runs each level for --runs-per-level N or --duration-per-level D, not --runs or --duration")
	case !perLevel:
		return nil, usageErr("a sweep needs --runs-per-level N or --duration-per-level D (how long each level runs)")
	case f.runsPerLevel > probe.MaxStreams:
		return nil, intRange("--runs-per-level", f.runsPerLevel, 0, probe.MaxStreams)
	case f.runsPerLevel < 0 || f.durationPerLevel < 0:
		return nil, usageErr("--runs-per-level and --duration-per-level must not be negative")
	case f.runsPerLevel == 0 && f.durationPerLevel == 0:
		return nil, usageErr("--runs-per-level 0 needs a --duration-per-level")
	case out.markdown && out.json:
		return nil, usageErr("--markdown and --json each print the report: pick one")
	}
	if top := levels[len(levels)-1]; kind == sweep.KindConcurrency && f.runsPerLevel > 0 && float64(f.runsPerLevel) < top {
		return nil, usageErr("--runs-per-level %d is below concurrency %s: that level would never have %s streams in flight", f.runsPerLevel, sweep.LevelNum(top), sweep.LevelNum(top))
	}
	sp := &sweep.Plan{Kind: kind, Levels: levels, SLO: out.slo}
	for _, e := range f.stopWhen {
		g, err := stats.ParseGate(e)
		if err != nil {
			return nil, usageErr("--stop-when: %v", err)
		}
		if g.Relative {
			return nil, usageErr("--stop-when %q: a relative value needs a baseline; give an absolute one", e)
		}
		if g.Metric == "goodput" && out.slo == nil {
			return nil, usageErr("--stop-when %q: goodput is the share of streams meeting --slo: add --slo, e.g. --slo 'ttft<500ms,gap.p99<250ms'", e)
		}
		sp.StopWhen = append(sp.StopWhen, g)
	}
	base.Runs, base.Duration = f.runsPerLevel, f.durationPerLevel
	return sp, nil
}

// tuneSweepGC sizes the GC floor for the sweep's heaviest level.
func tuneSweepGC(sp *sweep.Plan) {
	heaviest := sp.Base
	if sp.Kind == sweep.KindConcurrency {
		heaviest.Concurrency = int(sp.Levels[len(sp.Levels)-1])
	}
	gctune.ForStreams(heaviest.InFlight())
}

// runSweepHeadless carries out a sweep without a UI: a line per level on
// stderr as it ends, records to --out/--csv, the report (with the
// per-level table) on stdout.
func runSweepHeadless(ctx context.Context, stdout, stderr io.Writer, sp sweep.Plan, out *outputFlags) error {
	pl, err := beginSweep(ctx, stderr, &sp, out)
	if err != nil {
		return err
	}
	defer pl.Close()
	// The ticker and the level lines write from two goroutines.
	stderr = &syncWriter{w: stderr}
	stopTicker := progressTicker(stderr, sp.Base.Progress, time.Second)
	done := 0
	res, st := sweep.Run(pl.StopOnWriteError(ctx), sp, pl.Add, nil, func(r *sweep.Result) {
		for ; done < len(r.Levels); done++ {
			l := &r.Levels[done]
			fmt.Fprintf(stderr, "  %s done: %d streams, %d failed, ttft p95 %s ms, %s tok/s\n", sweep.Label(l.Kind, l.Level), l.Streams, l.Failed,
				num(stats.TTFT.Of(l.Metrics).P95), num(l.Throughput.TokensPerS))
		}
	})
	stopTicker()
	return pl.Report(stdout, stderr, out.report(&sp.Base, &st, &res, ctx.Err() != nil))
}

// beginSweep is beginRun for a sweep: the line describing it names the
// levels.
func beginSweep(ctx context.Context, stderr io.Writer, sp *sweep.Plan, out *outputFlags) (*pipeline.Pipeline, error) {
	return beginRun(ctx, stderr, &sp.Base, out, func(*probe.Plan) string { return sp.Describe() })
}

func num(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

// runSweepLive is a sweep on the run screen: the level in progress in the
// header, the per-level panel growing as levels end; once the screen has
// closed, the report with the table goes to stdout as headless.
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
	rc := tui.RunConfig{Plan: shown, Workload: workloadOf(&sp.Base), Load: sp.Describe(), Sweep: &sp}
	m := tui.NewRun(ctx, rc, tui.Config{Sink: pl.Add, StallMS: sp.Base.Options.StallMS, Color: os.Getenv("NO_COLOR") == "", Warning: screenWarning(sp.Base.Options)})
	if err := runProgram(ctx, m, opts...); err != nil {
		return err
	}
	st, stopped := m.RunResult()
	return pl.Report(stdout, stderr, out.report(&sp.Base, &st, m.SweepResult(), stopped))
}

// sweepOfInputs is the sweep in saved records, for drip compare --by level:
// its levels recomputed from the records and the knee; nil for any other
// grouping or records without levels.
func sweepOfInputs(by string, inputs []compare.Input) *sweep.Result {
	if by != "level" {
		return nil
	}
	var recs []*record.Record
	for _, in := range inputs {
		recs = append(recs, in.Records...)
	}
	kind := sweep.KindOf(recs)
	levels := sweep.FromRecords(kind, recs)
	if len(levels) == 0 {
		return nil
	}
	sort.SliceStable(levels, func(i, j int) bool { return levels[i].Level < levels[j].Level })
	r := &sweep.Result{Kind: kind, Levels: levels, KneeRule: sweep.KneeRule, Knee: sweep.FindKnee(levels)}
	for _, l := range levels {
		r.Planned = append(r.Planned, l.Level)
	}
	return r
}
