package main

import (
	"context"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/progress"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/tui"
)

// runTargets carries out one workload against several targets,
// interleaved. Each turn sends --concurrency streams (one with the closed
// loop's default) to each target in order, until every target has its
// --runs. That way drift in the network or the load around them lands on
// every target alike. On a terminal the compare screen fills in as streams
// end. Either way each target's summary and the comparison are printed after.
func runTargets(cmd *cobra.Command, args []string, req *requestFlags, load *workloadFlags, out *outputFlags) error {
	if err := checkTargetFlags(cmd.Flags(), load, out); err != nil {
		return err
	}
	ts, err := req.targets(cmd.Context(), args)
	if err != nil {
		return err
	}
	plans, err := targetPlans(cmd.Context(), cmd.Flags(), ts, req, load)
	if err != nil {
		return err
	}
	recs, err := openTargets(ts, out)
	if err != nil {
		return err
	}
	defer recs.Close()
	for i, p := range plans {
		recs.Bind(p.RunID, i)
	}
	ctx, stderr := cmd.Context(), cmd.ErrOrStderr()
	if err := runInterleaved(ctx, stderr, ts, plans, recs, out); err != nil {
		return err
	}
	return recs.ReportInterleaved(cmd.OutOrStdout(), stderr, out.gates, plans, version, ctx.Err() != nil)
}

// checkTargetFlags refuses what several targets cannot do.
func checkTargetFlags(fs *pflag.FlagSet, load *workloadFlags, out *outputFlags) error {
	for _, name := range []string{"rate", "duration", "runs-per-level", "duration-per-level", "stop-when", "metrics-addr", "otlp", "otlp-traces", "html"} {
		if fs.Lookup(name) != nil && fs.Changed(name) {
			return usageErr("several targets run interleaved turns of --runs: --%s takes one target", name)
		}
	}
	if out.json {
		return errJSONOneTarget
	}
	if len(load.concurrencyLevels.Vals) > 1 {
		return usageErr("several targets run interleaved turns of --runs: a --concurrency sweep takes one target")
	}
	return nil
}

// targetPlans is one plan per target, one prompt order for all.
func targetPlans(ctx context.Context, fs *pflag.FlagSet, ts []target, req *requestFlags, load *workloadFlags) ([]probe.Plan, error) {
	plans := make([]probe.Plan, len(ts))
	if !fs.Changed("seed") { // one seed for every target, for the same prompt order and synthetic prompts
		load.Seed, load.SeedGiven = probe.NewSeed(), true
	}
	for i, t := range ts {
		p := probe.Plan{Target: t.t, Options: t.o, RunID: probe.NewRunID()}
		if err := load.plan(ctx, fs, req, &p); err != nil {
			return nil, err
		}
		p.Stamp(version)
		plans[i] = p
	}
	return plans, nil
}

// runInterleaved says what is about to run, then runs the plans on the
// compare screen (on a terminal) or with a line per stream.
func runInterleaved(ctx context.Context, stderr io.Writer, ts []target, plans []probe.Plan, recs *pipeline.Targets, out *outputFlags) error {
	fmt.Fprintf(stderr, "drip: %d targets, interleaved turns of %d · %s\n", len(ts), max(1, plans[0].Concurrency), plans[0].Describe())
	for i, t := range ts {
		fmt.Fprintf(stderr, "  %s %s · %s\n", compare.Letter(i), t.name, t.t.Describe())
	}
	warnInsecure(stderr, plans[0].Options)
	if !useTUI(out) {
		progress.Interleave(ctx, stderr, plans, func(_ int, r *record.Record) { recs.Add(r) })
		return nil
	}
	feed := tui.NewCompareFeed(recs.Names)
	_, err := runCompareScreen(ctx, feed, tui.Config{StallMS: plans[0].Options.StallMS, Color: os.Getenv("NO_COLOR") == ""}, func(ctx context.Context) {
		probe.Interleave(ctx, plans, func(i int, r *record.Record) { recs.Add(r); feed.Add(i, r) })
	})
	return err
}

// runTargetsHelp is the run command's word on several targets.
const runTargetsHelp = `

Several URLs (or several -m with one URL) are several targets: the same
workload runs against each, interleaved in turns of --concurrency streams,
and on a terminal the compare screen fills in live, baseline the first.
Each target's summary and the comparison are printed at the end; --out
FILE.jsonl writes one file per target (FILE-A.jsonl, FILE-B.jsonl).`

// target is one system under test of watch or run, a URL with a model.
type target struct {
	name string // how the screen and the reports call it
	t    probe.Target
	o    probe.Options
}

// targets are the URLs paired with the -m values (pipeline.PairTargets),
// each built into a probe target with the request flags.
func (f *requestFlags) targets(ctx context.Context, urls []string) ([]target, error) {
	urls, models, names, err := pipeline.PairTargets(urls, f.models)
	if err != nil {
		return nil, err
	}
	out := make([]target, len(urls))
	for i := range urls {
		t, o, err := f.buildFor(ctx, urls[i], models[i])
		if err != nil {
			return nil, err
		}
		out[i] = target{name: names[i], t: t, o: o}
	}
	return out, nil
}

// openTargets opens a pipeline per target, each with its own --out file
// (pipeline.TargetPath) and one --csv for all.
func openTargets(ts []target, out *outputFlags) (*pipeline.Targets, error) {
	names := make([]string, len(ts))
	for i, t := range ts {
		names[i] = t.name
		if out.out == "" {
			continue
		}
		if err := pipeline.CheckOutPath("--out", pipeline.TargetPath(out.out, i), out.force); err != nil {
			return nil, err
		}
	}
	return pipeline.NewTargets(names, ts[0].o.StallMS, out.out, out.csv)
}
