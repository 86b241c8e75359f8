package main

import (
	"context"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/cliconv"
	"github.com/driplab/drip/internal/config"
	"github.com/driplab/drip/internal/gctune"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/progress"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
	"github.com/driplab/drip/tui"
)

// outputFlags are where a run's results go.
type outputFlags struct {
	out      string
	json     bool
	names    string // --names gives another tool's field names in --json
	quiet    bool   // -q prints the figures alone, no progress on stderr
	csv      string
	noTUI    bool
	markdown bool // a sweep's table as Markdown (sweepFlags registers it)
	failIf   []string
	gates    []stats.Gate
	sloExpr  string      // --slo (drip run registers it)
	slo      *stats.SLO  // parsed by parseGates, nil without --slo
	export   exportFlags // drip run only
	htmlPath string      // --html (drip run registers it)
	html     *pipeline.HTML
	force    bool // --force lets outputs replace files that hold data
	several  bool // set for several targets, where --out names a file per target (openTargets checks those)
}

func (f *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.out, "out", "", "write one JSON record per stream to this file (JSON Lines, mode 0600), each as it ends")
	fs.BoolVar(&f.json, "json", false, "print the summary as one JSON object on stdout")
	fs.StringVar(&f.names, "names", "", "with --json, add the figures under another tool's field names: vllm (vllm bench serve's result keys) or aiperf (profile_export_aiperf.json's metrics); docs/metrics.md")
	fs.StringVar(&f.csv, "csv", "", "write one CSV row per stream to this file")
	fs.BoolVarP(&f.quiet, "quiet", "q", false, "figures only: the report's table, figures and gates, without the head, hints and conventions, and no progress on stderr (warnings and errors still)")
	fs.BoolVar(&f.noTUI, "no-tui", false, "plain output even on a terminal (automatic when stdout is not one)")
	registerForce(fs, &f.force)
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "exit 1 when the condition holds, e.g. 'ttft.p95 > 800ms', 'gap.p99 >= 0.25s', 'failed > 0' (repeatable)")
}

// registerSLO adds --slo, the per-stream terms goodput counts.
func (f *outputFlags) registerSLO(fs *pflag.FlagSet) {
	fs.StringVar(&f.sloExpr, "slo", "", "goodput: the share of streams that complete and meet every per-stream term, e.g. 'ttft<500ms,gap.p99<250ms' (gate it with --fail-if 'goodput < 90')")
}

// parseGates checks --names, that --out, --csv and --html can be created
// and replace nothing unasked, and every --fail-if and --slo
// (pipeline.ParseGates) before anything is sent.
func (f *outputFlags) parseGates() error {
	out := f.out
	if f.several {
		out = "" // a file per target, checked when the targets are known
	}
	if err := pipeline.CheckOutputs(f.force, pipeline.Output{Flag: "--out", Path: out}, pipeline.Output{Flag: "--csv", Path: f.csv}, pipeline.Output{Flag: "--html", Path: f.htmlPath}); err != nil {
		return err
	}
	switch {
	case f.names != "" && f.names != report.NamesVLLM && f.names != report.NamesAIPerf:
		return usageErr("--names %s: want vllm or aiperf", sanitize.Line(f.names))
	case f.names != "" && !f.json:
		return usageErr("--names maps the JSON summary's figures: add --json")
	}
	var err error
	f.gates, f.slo, err = pipeline.ParseGates(f.failIf, f.sloExpr)
	return err
}

// workloadFlags shape a run's load. The flags bind into a probe.Load and
// save the levels a sweep may list.
type workloadFlags struct {
	probe.Load
	concurrencyLevels sweep.Levels
	rateLevels        sweep.Levels
	prompts           string
	data              datasetFlags
}

func (f *workloadFlags) register(fs *pflag.FlagSet) {
	// The default is said in the text. pflag's "(default 3)" would be
	// wrong with --duration, which makes it no limit.
	fs.IntVarP(&f.Runs, "runs", "n", 0, fmt.Sprintf("measured streams in all (default %d; with --duration: no limit, or at most this many; 0 = no limit)", probe.DefaultRuns))
	fs.IntVar(&f.Warmup, "warmup", 0, "warmup streams per prompt first, recorded with phase \"warmup\" and left out of the figures")
	f.concurrencyLevels.Whole = true
	fs.VarP(&f.concurrencyLevels, "concurrency", "c", "closed loop: keep this many streams in flight (default 1); a rising list 1,2,4,8 sweeps them")
	fs.Var(&f.rateLevels, "rate", "open loop: start this many streams per second, whatever the server does; a rising list 1,2,5,10 sweeps them")
	fs.StringVar(&f.Arrival, "arrival", probe.ArrivalConstant, "open-loop arrivals: constant (every 1/rate), poisson or gamma (--burstiness; both seeded)")
	fs.DurationVar(&f.Duration, "duration", 0, "stop admitting streams after this long (in-flight ones finish)")
	fs.IntVar(&f.MaxInflight, "max-inflight", probe.DefaultMaxInflight, "open loop: arrivals beyond this many streams in flight are counted as not admitted, never queued")
	fs.Int64Var(&f.Seed, "seed", 0, "seed for the prompt order and Poisson arrivals (default: chosen and printed)")
	fs.StringVar(&f.prompts, "prompts", "", "a prompt set: builtin (a short question, a medium explanation, a long structured answer)")
	f.data.register(fs)
}

// plan fills a plan with the workload flags. The load fills and checks
// the plan (probe.Load.Apply). What is checked here is only how the flags
// go together.
func (f *workloadFlags) plan(ctx context.Context, fs *pflag.FlagSet, req *requestFlags, p *probe.Plan) error {
	f.Concurrency, f.Rate = int(f.concurrencyLevels.First(1)), f.rateLevels.First(0)
	f.RunsGiven, f.SeedGiven = fs.Changed("runs"), f.SeedGiven || fs.Changed("seed")
	switch {
	case f.MaxInflight < 1:
		return intRange("--max-inflight", f.MaxInflight, 1, probe.MaxInFlight)
	case f.Rate == 0 && (fs.Changed("arrival") || fs.Changed("max-inflight")):
		return usageErr("--arrival and --max-inflight shape an open loop: add --rate")
	case f.Rate > 0 && fs.Changed("concurrency"):
		return usageErr("--concurrency is the closed loop and --rate the open one: pick one (bound an open loop with --max-inflight)")
	case f.prompts != "" && f.prompts != "builtin":
		return usageErr("--prompts knows one set: builtin")
	}
	var err error
	if p.Prompts, err = f.promptSet(ctx, req); err != nil {
		return err
	}
	explicit := len(req.prompts)+len(req.promptFiles) > 0 || f.prompts != ""
	sg, err := f.data.load(ctx, fs, &f.Load, explicit || p.Target.Body != nil)
	if err != nil {
		return err
	}
	if sg != nil {
		p.Prompts = sg.Prompts
	}
	if err := f.Apply(p); err != nil {
		return usageErr("%v", err)
	}
	if sg != nil {
		sampleShareGPT(sg, p)
	}
	return req.shape.applyLengths(req, p, explicit || sg != nil || f.Trace != nil)
}

// promptSet is -p and --prompt-file's prompts, or the builtin set.
func (f *workloadFlags) promptSet(ctx context.Context, req *requestFlags) ([]probe.Prompt, error) {
	set, err := req.promptSet(ctx)
	if err != nil || f.prompts != "builtin" {
		return set, err
	}
	if len(req.prompts)+len(req.promptFiles) == 0 {
		set = nil // the default prompt gives way to the set
	}
	return append(set, probe.BuiltinPrompts()...), nil
}

// runFlags are drip run's flags.
type runFlags struct {
	req        requestFlags
	out        outputFlags
	load       workloadFlags
	fleet      fleetFlags
	sw         sweepFlags
	configPath string
}

func newRunCmd() *cobra.Command {
	var f runFlags
	cmd := &cobra.Command{
		Use:     "run URL [URL…]",
		Short:   "Measure repeated streams from an endpoint, alone or under load, and report their timing",
		Long:    runLong,
		Example: runExample,
		Args: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 && f.configPath == "" {
				return usageErr("drip run needs a URL (or --config FILE with targets)")
			}
			return nil
		},
		RunE: func(cmd *cobra.Command, args []string) error { return runRun(cmd, args, &f) },
	}
	fs := cmd.Flags()
	f.req.register(fs)
	f.out.register(fs)
	f.out.registerSLO(fs)
	fs.StringVar(&f.configPath, "config", "", "read targets, [headers] (${ENV} expanded), [workload] and [gates] from a TOML file; flags on the command line win, and the file's headers add to -H's save one a -H names")
	f.req.shape.registerLengths(fs)
	f.load.register(fs)
	f.fleet.register(fs)
	f.sw.register(fs, &f.out)
	f.out.export.register(fs)
	registerHTML(fs, &f.out.htmlPath)
	fs.SetNormalizeFunc(cliconv.Aliases) // other tools' names for drip run's flags
	return cmd
}

// runRun is drip run. The flags make a plan (or a sweep of plans, or one
// per target), carried out on the run screen or headless.
func runRun(cmd *cobra.Command, args []string, f *runFlags) error {
	if f.configPath != "" {
		var err error
		if args, err = config.Apply(cmd.Context(), cmd.Flags(), f.configPath, args); err != nil {
			return usageErr("%v", err)
		}
	}
	f.req.stderr = cmd.ErrOrStderr()
	f.out.several = len(args) > 1 || len(f.req.models) > 1
	if err := pipeline.FirstErr(f.out.parseGates(), f.out.export.check()); err != nil {
		return err
	}
	if len(args) > 1 || len(f.req.models) > 1 {
		return runTargets(cmd, args, &f.req, &f.load, &f.out)
	}
	plan, sp, err := f.plan(cmd.Context(), cmd.Flags(), args[0])
	if err != nil {
		return err
	}
	ctx, stdout, stderr, out := cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), &f.out
	switch {
	case sp != nil && useTUI(out):
		return runSweepLive(ctx, stdout, stderr, *sp, out)
	case sp != nil:
		return runSweepHeadless(ctx, stdout, stderr, *sp, out)
	case useTUI(out):
		return runLive(ctx, stdout, stderr, plan, out)
	}
	return runHeadless(ctx, stdout, stderr, plan, out)
}

// plan is the run the flags describe against url, one plan or a sweep
// (non-nil) of it, with the GC tuned for its heaviest load.
func (f *runFlags) plan(ctx context.Context, fs *pflag.FlagSet, url string) (probe.Plan, *sweep.Plan, error) {
	t, o, err := f.req.build(ctx, url)
	if err != nil {
		return probe.Plan{}, nil, err
	}
	plan := probe.Plan{Target: t, Options: o}
	for _, step := range []func() error{
		func() error { return f.load.plan(ctx, fs, &f.req, &plan) },
		func() error { return f.fleet.apply(&plan) },
		func() error { return f.fleet.applyShard(fs, &plan) },
	} {
		if err := step(); err != nil {
			return plan, nil, err
		}
	}
	sp, err := f.sw.sweepPlan(fs, &f.load, &f.out, &plan)
	if err != nil {
		return plan, nil, err
	}
	plan.Stamp(version)
	if sp == nil {
		gctune.ForStreams(plan.InFlight())
		return plan, nil, nil
	}
	if plan.Shards > 0 {
		return plan, nil, usageErr("--shard runs one workload's slice; a sweep's levels are not sharded")
	}
	sp.Base = plan
	heaviest := sp.Heaviest() // the GC sized for the heaviest level
	gctune.ForStreams(heaviest.InFlight())
	return plan, sp, nil
}

// runLong is drip run's --help text.
var runLong = `Send streaming requests and report time to first token, gaps between tokens,
stalls, ITL and throughput, with the number of samples beside every
percentile. Failed, incomplete, canceled and not-admitted streams are
counted, never dropped.

Prompts: repeat -p, add --prompt-file (a text file is one prompt; a .jsonl
file holds {"id","prompt"[,"max_tokens"]} lines) or --prompts builtin. Every
record names its prompt; the order is shuffled per round (each prompt once
per round) from --seed, which is printed when drip picks it.

Load: --concurrency N keeps N streams in flight (closed loop). --rate R
starts R streams per second on a schedule (open loop, --arrival constant or
poisson) whatever the server does, and reports latency both from the actual
send (service view) and from the intended start (user view), so a client
that falls behind cannot hide the wait. --runs counts measured streams;
--duration stops admitting after that long.

Sweeps: a rising list (--concurrency 1,2,4,8,16 or --rate 1,2,5,10) runs
the levels in turn, each with its own warmup and --runs-per-level N or
--duration-per-level D, every record carrying its level. The report gains
a table per level and the knee: the first level where TTFT p95 or gap p99
rose beyond noise while throughput did not follow (docs/sweeps.md).
--stop-when 'EXPR' ends the sweep at the first level where the gate holds;
--fail-if is judged once, on every level's streams pooled.

Without a terminal, one stream at a time gets a line each on stderr: its
number, prompt, status, TTFT, e2e, output tokens (~ approximated, one per
content frame; — no count) and stalls; under load, a line of counts a
second.

Ctrl-C stops admitting, cancels the streams in flight (recorded as
canceled), prints the summary of what finished and exits 130 (143 after
SIGTERM); a second Ctrl-C exits at once.` + runTargetsHelp + `

` + aliasHelp + `

Each stream is bounded by --max-frames and --max-bytes: past either it is
stopped, kept up to the limit and recorded incomplete (error class limit).
Redirects are followed only to the same origin (307/308);
--follow-redirects takes another origin, without credential headers.

Exit codes: 0 ok, 1 a --fail-if gate tripped, 2 usage error (nothing is
sent), 3 no measured stream completed (of any one target, with several) or
the run could not be carried out (the report is still printed), 130/143
after SIGINT/SIGTERM. See
docs/security.md.

A base URL with no path, or ending in /v1 as OPENAI_BASE_URL does, gets the
format's endpoint (/v1/chat/completions for the default openai-chat), said
on stderr; a 404 elsewhere names the URL to try. A model the URL names
(Gemini, Bedrock) wins over -m, with a warning when they differ.

` + gateAliasHelp

// runExample is drip run's --help examples.
var runExample = `  drip run http://localhost:8000 -m my-model --runs 10
  drip run http://localhost:8000 --prompts builtin --warmup 1 --runs 30 --concurrency 6
  drip run http://localhost:8000 --rate 10 --arrival poisson --duration 60s --out load.jsonl
  drip run https://api.openai.com -m gpt-4o-mini --json --out runs.jsonl
  drip run http://localhost:8000 --fail-if 'ttft.p95 > 800ms' --fail-if 'failed > 0'
  drip run http://localhost:8000 --runs 20 --slo 'ttft<500ms,gap.p99<250ms' --fail-if 'goodput < 90'
  drip run http://localhost:8000 -m my-model --input-tokens 512±64 --output-tokens 128 --extra-body '{"ignore_eos":true}'
  drip run http://localhost:8000/v1/chat/completions -d @body.json
  drip run http://localhost:8000 --concurrency 1,2,4,8,16 --runs-per-level 16 --warmup 1
  drip run http://localhost:8000 --rate 1,2,5,10 --duration-per-level 30s --stop-when 'failed_pct > 5'
  drip run http://localhost:8000 --concurrency 1,2,4,8 --runs-per-level 8 --markdown > sweep.md
  drip run http://gpu-a:8000 http://gpu-b:8000 -m my-model --runs 10 --out ab.jsonl
  drip run --config drip.toml --runs 50`

// runHeadless carries out a plan without a UI. Progress goes to stderr,
// records to --out/--csv as they end, and the report to stdout. When ctx
// is canceled (Ctrl-C) the run stops admitting, in-flight streams are
// recorded as canceled, and the report covers what finished.
func runHeadless(ctx context.Context, stdout, stderr io.Writer, plan probe.Plan, out *outputFlags) error {
	pl, err := beginRun(ctx, stderr, &plan, out, (*probe.Plan).Describe)
	if err != nil {
		return err
	}
	defer pl.Close()
	st := progress.Run(pl.StopOnWriteError(ctx), stderr, plan, out.quiet, pl.Add)
	return pl.Report(stdout, stderr, out.report(&plan, &st, nil, ctx.Err() != nil))
}

// runLive carries out a plan on the run screen. Records go to --out/--csv
// and into the aggregate as they end, exactly as headless. q or Ctrl-C
// stops admitting and cancels the streams in flight (recorded as
// canceled). Once the screen has closed and every record is written, the
// headless report of what was recorded goes to stdout and the gates apply.
func runLive(ctx context.Context, stdout, stderr io.Writer, plan probe.Plan, out *outputFlags, opts ...tea.ProgramOption) error {
	// The line describing the run is printed before the screen opens, so
	// it stays above the report.
	pl, err := beginRun(ctx, stderr, &plan, out, (*probe.Plan).Describe)
	if err != nil {
		return err
	}
	defer pl.Close()
	rc := tui.RunConfig{Plan: plan, Workload: pipeline.WorkloadOf(&plan, version), Load: plan.Describe()}
	return runScreen(pl.StopOnWriteError(ctx), stdout, stderr, rc, &plan, pl, out, opts...)
}

// runScreen runs the run screen (rc is a plan, or a sweep of base) with its
// records going to pl, then reports what was recorded. The runner calls
// the sink from one goroutine at a time. The figures are read after the
// screen's Wait, once that goroutine has ended.
func runScreen(ctx context.Context, stdout, stderr io.Writer, rc tui.RunConfig, base *probe.Plan, pl *pipeline.Pipeline, out *outputFlags, opts ...tea.ProgramOption) error {
	m := tui.NewRun(ctx, rc, tui.Config{Sink: pl.Add, StallMS: base.Options.StallMS, Color: os.Getenv("NO_COLOR") == "", Warning: screenWarning(base.Options)})
	if err := runProgram(ctx, m, opts...); err != nil {
		return err
	}
	st, stopped := m.RunResult()
	return pl.Report(stdout, stderr, out.report(base, &st, m.SweepResult(), stopped))
}

// preparePlan fills what a plan needs to be reported on.
func preparePlan(plan *probe.Plan) {
	if plan.Workload == nil {
		plan.Stamp(version)
	}
	if plan.Progress == nil {
		plan.Progress = &probe.Progress{}
	}
}

// report is how a run of plan is reported, by the output flags.
func (f *outputFlags) report(plan *probe.Plan, st *stats.RunStats, sw *sweep.Result, interrupted bool) pipeline.Run {
	return pipeline.Run{
		Stats: st, Workload: pipeline.WorkloadOf(plan, version), Gates: f.gates, JSON: f.json, Names: f.names, Markdown: f.markdown, Quiet: f.quiet,
		Sweep: sw, Interrupted: interrupted, Target: probe.RedactURL(plan.Target.URL), HTML: f.html,
	}
}

// attach opens --out, --csv and --html as p's sinks.
func (f *outputFlags) attach(p *pipeline.Pipeline) error {
	var err error
	if f.html, err = openHTML(f.htmlPath, p); err != nil {
		return err
	}
	return p.AttachFiles(f.out, f.csv)
}

// beginRun opens --out, --csv and the exporters (saying where /metrics
// is) and readies the plan for its report. It says on stderr what is
// about to run, the target and load, as load words it.
func beginRun(ctx context.Context, stderr io.Writer, plan *probe.Plan, out *outputFlags, load func(*probe.Plan) string) (*pipeline.Pipeline, error) {
	pl := pipeline.New(plan.Options.StallMS, out.slo)
	if err := out.attach(pl); err != nil {
		return nil, err
	}
	sinks, err := out.export.open(ctx, stderr, plan)
	if err != nil {
		pl.Close()
		return nil, err
	}
	pl.Attach(sinks...)
	preparePlan(plan)
	if !out.quiet {
		fmt.Fprintf(stderr, "drip: %s · %s\n", plan.Target.Describe(), load(plan))
	}
	warnInsecure(stderr, plan.Options)
	return pl, nil
}
