package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"sync"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/compare"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// runTargets carries out one workload against several targets,
// interleaved: a turn of --concurrency streams (one with the closed loop's
// default) against each target in order, until every target has its
// --runs, so drift in the network or the load around them lands on every
// target alike. On a terminal the compare screen fills in as streams end;
// either way each target's summary and the comparison are printed after.
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
	err = recs.Report(cmd.OutOrStdout(), stderr, out.gates, func(i int, _ *record.Record) stats.Workload {
		w := workloadOf(&plans[i])
		w.Order = fmt.Sprintf("interleaved with %s in turns of %d; throughput's window spans their turns too", stats.Count(len(plans)-1, "other target"), max(1, plans[i].Concurrency))
		return w
	})
	// As with one target: a target no stream reached is a run that could
	// not be carried out (the report is printed all the same).
	if i := recs.Unreached(); (err == nil || err == errGateTripped) && ctx.Err() == nil && i >= 0 {
		return cannotErr(fmt.Errorf("no response from %s (%s): every stream failed before headers", ts[i].name, probe.RedactURL(ts[i].t.URL)))
	}
	return err
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
	if len(load.concurrencyLevels.vals) > 1 {
		return usageErr("several targets run interleaved turns of --runs: a --concurrency sweep takes one target")
	}
	return nil
}

// targetPlans is one plan per target, one prompt order for all.
func targetPlans(ctx context.Context, fs *pflag.FlagSet, ts []target, req *requestFlags, load *workloadFlags) ([]probe.Plan, error) {
	plans := make([]probe.Plan, len(ts))
	for i, t := range ts {
		p := probe.Plan{Target: t.t, Options: t.o, RunID: probe.NewRunID()}
		if err := load.plan(ctx, fs, req, &p); err != nil {
			return nil, err
		}
		if i > 0 {
			p.Seed = plans[0].Seed // one prompt order for every target
		}
		p.Workload = &record.RecordWorkload{MaxTokens: t.t.Request.MaxTokens, Concurrency: p.Concurrency, Version: version}
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
		log := streamLog{w: stderr}
		interleave(ctx, plans, func(i int, r *record.Record) {
			recs.Add(r)
			log.add("  "+compare.Letter(i)+" ", r)
		})
		return nil
	}
	feed := tui.NewCompareFeed(recs.Names)
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() {
		interleave(rctx, plans, func(i int, r *record.Record) { recs.Add(r); feed.Add(i, r) })
		feed.Close()
	})
	m := tui.NewLiveCompare(ctx, feed, tui.Config{StallMS: plans[0].Options.StallMS, Color: os.Getenv("NO_COLOR") == ""})
	err := runProgram(ctx, m)
	cancel()
	wg.Wait()
	return err
}

// interleave runs the plans in turns: each turn a slice of every plan's
// streams (its concurrency), target after target, numbered on from the
// last turn and on one time axis, warmup in the first turn only.
func interleave(ctx context.Context, plans []probe.Plan, sink func(i int, r *record.Record)) {
	start := time.Now()
	done := make([]int, len(plans))
	next := make([]int, len(plans))
	for turn := 0; ctx.Err() == nil; turn++ {
		more := false
		for i, base := range plans {
			left := base.Runs - done[i]
			if left <= 0 || ctx.Err() != nil {
				continue
			}
			more = true
			p := base
			p.Runs = min(left, max(1, base.Concurrency))
			p.FirstSeq, p.Start = next[i], start
			if turn > 0 {
				p.Warmup = 0
			}
			probe.Run(ctx, p, func(r *record.Record) {
				next[i] = max(next[i], r.Seq+1)
				if r.Phase != record.PhaseWarmup {
					done[i]++
				}
				sink(i, r)
			}, nil)
		}
		if !more {
			return
		}
	}
}

// runTargetsHelp is the run command's word on several targets.
const runTargetsHelp = `

Several URLs (or several -m with one URL) are several targets: the same
workload runs against each, interleaved in turns of --concurrency streams,
and on a terminal the compare screen fills in live, baseline the first.
Each target's summary and the comparison are printed at the end; --out
FILE.jsonl writes one file per target (FILE-A.jsonl, FILE-B.jsonl).`
