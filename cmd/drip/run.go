package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/report"
	"github.com/driplab/drip/sanitize"
)

// outputFlags are where a run's results go.
type outputFlags struct {
	out    string
	json   bool
	csv    string
	noTUI  bool
	failIf []string
	gates  []probe.Gate
}

func (f *outputFlags) register(fs *pflag.FlagSet) {
	fs.StringVar(&f.out, "out", "", "write one JSON record per stream to this file (JSON Lines, mode 0600), each as it ends")
	fs.BoolVar(&f.json, "json", false, "print the summary as one JSON object on stdout")
	fs.StringVar(&f.csv, "csv", "", "write one CSV row per stream to this file")
	fs.BoolVar(&f.noTUI, "no-tui", false, "plain output even on a terminal (automatic when stdout is not one)")
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "exit 1 when the condition holds, e.g. 'ttft.p95 > 800ms', 'gap.p99 >= 0.25s', 'failed > 0' (repeatable)")
}

// parseGates checks every --fail-if before anything is sent.
func (f *outputFlags) parseGates() error {
	for _, e := range f.failIf {
		g, err := probe.ParseGate(e)
		if err != nil {
			return usageErr("--fail-if: %v", err)
		}
		f.gates = append(f.gates, g)
	}
	return nil
}

func newRunCmd() *cobra.Command {
	var (
		req  requestFlags
		out  outputFlags
		runs int
		warm int
	)
	cmd := &cobra.Command{
		Use:   "run URL",
		Short: "Measure repeated streams from an endpoint and report their timing",
		Long: `Send the same streaming request several times and report time to first
token, gaps between tokens, stalls, ITL and throughput, with the number of
samples beside every percentile. Failed and incomplete streams are counted,
never dropped.

A base URL with no path gets the format's endpoint (/v1/chat/completions for
the default openai-chat).`,
		Example: `  drip run http://localhost:8000 -m my-model --runs 10
  drip run https://api.openai.com -m gpt-4o-mini --json --out runs.jsonl
  drip run http://localhost:8000 --fail-if 'ttft.p95 > 800ms' --fail-if 'failed > 0'`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.parseGates(); err != nil {
				return err
			}
			if runs < 1 || warm < 0 {
				return usageErr("--runs must be at least 1 and --warmup not negative")
			}
			t, o, err := req.build(args[0])
			if err != nil {
				return err
			}
			plan := probe.Plan{Target: t, Options: o, Runs: runs, Warmup: warm, PromptID: "p0"}
			return runHeadless(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), plan, &out)
		},
	}
	req.register(cmd.Flags())
	out.register(cmd.Flags())
	cmd.Flags().IntVarP(&runs, "runs", "n", 3, "measured streams")
	cmd.Flags().IntVar(&warm, "warmup", 0, "warmup streams first, recorded with phase \"warmup\" and left out of the figures")
	return cmd
}

// runHeadless carries out a plan without a UI: progress lines on stderr,
// records to --out/--csv as they end, the report on stdout.
func runHeadless(ctx context.Context, stdout, stderr io.Writer, plan probe.Plan, out *outputFlags) error {
	var sinks []func(*probe.Record) error
	if out.out != "" {
		w, err := probe.Create(out.out)
		if err != nil {
			return cannotErr(fmt.Errorf("--out: %w", err))
		}
		defer w.Close()
		sinks = append(sinks, w.Write)
	}
	if out.csv != "" {
		f, err := os.OpenFile(out.csv, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
		if err != nil {
			return cannotErr(fmt.Errorf("--csv: %w", err))
		}
		defer f.Close()
		c, err := report.NewCSV(f)
		if err != nil {
			return cannotErr(fmt.Errorf("--csv: %w", err))
		}
		sinks = append(sinks, c.Write)
	}
	fmt.Fprintf(stderr, "drip: %s · %d runs", describe(plan.Target), plan.Runs)
	if plan.Warmup > 0 {
		fmt.Fprintf(stderr, " after %d warmup", plan.Warmup)
	}
	fmt.Fprintln(stderr)

	agg := probe.NewAggregate(plan.Options.StallMS)
	var sinkErr error
	reachable := false
	probe.Run(ctx, plan, func(r *probe.Record) {
		agg.Add(r)
		if r.HTTPStatus != 0 {
			reachable = true
		}
		for _, s := range sinks {
			if err := s(r); err != nil && sinkErr == nil {
				sinkErr = err
			}
		}
		fmt.Fprintln(stderr, progressLine(r))
	}, nil)
	if sinkErr != nil {
		return cannotErr(fmt.Errorf("writing records: %w", sinkErr))
	}

	s := agg.Summary(probe.Workload{
		Target: probe.RedactURL(plan.Target.URL), Format: plan.Target.Format.Name, Model: plan.Target.Request.Model,
		MaxTokens: plan.Target.Request.MaxTokens, Runs: plan.Runs, Warmup: plan.Warmup,
		WarmupRule: fmt.Sprintf("%d warmup streams before measuring, excluded from every figure", plan.Warmup),
		Concurrency: 1, PromptIDs: []string{plan.PromptID}, Version: version,
	})
	tripped := false
	for _, g := range out.gates {
		r := g.Eval(&s)
		tripped = tripped || r.Tripped
		s.Gates = append(s.Gates, r)
	}
	if out.json {
		enc := json.NewEncoder(stdout)
		enc.SetIndent("", "  ")
		if err := enc.Encode(s); err != nil {
			return cannotErr(err)
		}
	} else {
		report.Text(stdout, &s)
	}
	if !reachable && ctx.Err() == nil {
		return cannotErr(fmt.Errorf("no response from %s: every stream failed before headers", probe.RedactURL(plan.Target.URL)))
	}
	if tripped {
		return errGateTripped
	}
	return nil
}

// progressLine is one stream's line in the headless log.
func progressLine(r *probe.Record) string {
	s := fmt.Sprintf("  #%-3d %-7s %-10s ttft %6s ms  e2e %8s ms  %4d tokens (%s)  %d stalls",
		r.Seq, r.Phase, r.Status, report.Num(r.TTFTMS), report.Num(r.E2EMS), r.OutputTokens, r.TokensSource, len(r.Stalls))
	if r.Buffered {
		s += "  buffered"
	}
	if r.Error != nil {
		s += "  " + r.Error.Class + ": " + sanitize.Line(r.Error.Message)
	}
	return s
}
