package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/interrupt"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

func newWatchCmd() *cobra.Command {
	var (
		req       requestFlags
		out       outputFlags
		alternate bool
		relay     string
	)
	cmd := &cobra.Command{
		Use:     "watch URL [URL…]",
		Short:   "Watch streams live: the wait, every frame, every stall where it happened; several targets side by side",
		Long:    watchLong,
		Example: watchExample,
		Args:    cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			req.stderr = cmd.ErrOrStderr()
			out.several = len(args) > 1 || len(req.models) > 1
			if err := out.parseGates(); err != nil {
				return err
			}
			ts, err := req.targets(cmd.Context(), args)
			if err != nil {
				return err
			}
			if len(ts) > 1 && out.json {
				return errJSONOneTarget
			}
			if relay != "" && (len(ts) > 1 || !useTUI(&out)) {
				return usageErr("--relay shows one stream's owners on the screen: give one target, on a terminal (without one, drip hops reads drip record's file)")
			}
			if len(ts) > 1 || useTUI(&out) {
				warnInsecure(cmd.ErrOrStderr(), ts[0].o) // the headless run says it with its plan
			}
			if len(ts) > 1 {
				return watchTargets(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), ts, &out, alternate)
			}
			if alternate {
				return usageErr("--alternate takes turns between several targets: give two or more URLs or -m values")
			}
			if !useTUI(&out) {
				plan := probe.Plan{Target: ts[0].t, Options: ts[0].o, Runs: 1}
				return runHeadless(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), plan, &out)
			}
			return watchScreen(cmd.Context(), cmd.OutOrStdout(), ts[0], &out, relay)
		},
	}
	req.register(cmd.Flags())
	out.register(cmd.Flags())
	cmd.Flags().StringVar(&relay, "relay", "", "a relay's stream times (drip record --hops-addr, e.g. http://127.0.0.1:4144): each stall's owner, upstream or path, live")
	cmd.Flags().BoolVar(&alternate, "alternate", false, "send the prompt to the targets one after another instead of at once (targets that share a host)")
	return cmd
}

// watchScreen opens the stream screen on one target, each stall's owner
// read live from the relay when --relay names one.
func watchScreen(ctx context.Context, stdout io.Writer, tg target, out *outputFlags, relay string) error {
	t, o := tg.t, tg.o
	o.CPU = probe.StartCPUSampler() // one for every stream the screen runs
	defer o.CPU.Stop()
	src := tui.StreamSource("", probe.NewRunID(), t, o)
	cfg := tui.Config{Sources: []tui.Source{src}, StallMS: o.StallMS, Warning: screenWarning(o)}
	if relay != "" {
		u, err := probe.ParseHTTPURL(relay)
		if err != nil {
			return usageErr("--relay %v", err)
		}
		cfg.RelayFetch = hops.Fetcher(u)
	}
	return runTUI(ctx, stdout, cfg, out)
}

// watchTargets races several targets with one prompt. It shows the targets
// screen until the user quits, or runs headless one stream per target. Then
// it prints each target's summary and the comparison of their runs.
func watchTargets(ctx context.Context, stdout, stderr io.Writer, ts []target, out *outputFlags, alternate bool) error {
	recs, err := openTargets(ts, out)
	if err != nil {
		return err
	}
	defer recs.Close()
	cpu := probe.StartCPUSampler() // one for every target's streams
	defer cpu.Stop()
	srcs := make([]tui.Source, len(ts))
	for i, t := range ts {
		runID := probe.NewRunID()
		recs.Bind(runID, i)
		t.o.CPU = cpu
		srcs[i] = tui.StreamSource(t.name, runID, t.t, t.o)
	}
	if useTUI(out) {
		m := tui.NewTargets(ctx, tui.Config{Sources: srcs, StallMS: ts[0].o.StallMS, Sink: recs.Add, Color: os.Getenv("NO_COLOR") == "", Warning: screenWarning(ts[0].o)}, alternate)
		if err := runProgram(ctx, m); err != nil {
			return err
		}
	} else {
		tui.Round(ctx, srcs, recs.Add, alternate)
	}
	wl := pipeline.SessionWorkload(version)
	return recs.Report(stdout, stderr, out.gates, func(_ int, r *record.Record) stats.Workload { return wl(r) })
}

// watchLong is drip watch's --help text.
var watchLong = `Open a streaming request and show it as it arrives: a timeline of every
frame, the text with a marker where each stall happened, the three clocks
(wait, stream, tail), the gap histogram and a heatmap of runs. Press r to
run it again: earlier runs stay on the same time axis, so a stall that
recurs lines up.

Several URLs are several targets, raced with the same prompt: every target
gets it at once (--alternate: one after another, for targets that share a
host), each in its own pane on one time axis, and a clocks table puts a
column per target beside the first with the deltas. r re-runs them all;
runs accumulate, and once each target has 3 runs the deltas carry the
bootstrap interval drip compare uses. -m given once applies to every URL,
once per URL pairs with them in order, and several -m with one URL make one
target per model. --out FILE.jsonl writes one file per target, the letter
before the extension (FILE-A.jsonl, FILE-B.jsonl), ready for drip compare.

On quit the summary of every target is printed, and with several targets
the comparison of their runs, as drip compare prints it.

Without a terminal (a pipe, CI, TERM=dumb) or with --no-tui or --json, it
measures one stream per target and prints the headless report instead.

` + gateAliasHelp

// watchExample is drip watch's --help examples.
var watchExample = `  drip watch http://localhost:8000 -m my-model
  drip watch https://api.openai.com -m gpt-4o-mini --out watch.jsonl
  drip watch http://gpu-a:8000 http://gpu-b:8000 -m my-model
  drip watch http://localhost:8000 -m model-a -m model-b --alternate --out ab.jsonl`

// useTUI reports whether to open the live view. Both ends of the terminal
// must be one (Bubble Tea would otherwise try /dev/tty) that can draw one
// (not TERM=dumb), and no flag may ask for plain output.
func useTUI(out *outputFlags) bool {
	return !out.noTUI && !out.json && os.Getenv("TERM") != "dumb" && term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}

// runTUI runs the live view until the user quits. Records go to --out and
// --csv as each stream ends, including a stream canceled by quitting. The
// summary of the runs goes to stdout once the screen has closed, so the
// figures stay in the scrollback, and the --fail-if gates are checked over
// them.
func runTUI(ctx context.Context, stdout io.Writer, cfg tui.Config, out *outputFlags) error {
	pl := pipeline.New(cfg.StallMS, out.slo)
	pl.KeepRecords()
	if err := out.attach(pl); err != nil {
		return err
	}
	defer pl.Close()
	cfg.Sink = pl.Add
	cfg.Color = os.Getenv("NO_COLOR") == ""
	m := tui.New(ctx, cfg)
	if err := runProgram(ctx, m); err != nil {
		return err
	}
	// Several sources are the demo's scenarios, and a tour of them is a table.
	table := len(cfg.Sources) > 1
	return pl.ReportSession(stdout, sanitize.NewWriter(os.Stderr), pipeline.Session{Gates: out.gates, Out: out.out, Workload: pipeline.SessionWorkload(version), Table: table})
}

// runProgram runs a live view until the user quits, then waits for its
// streams to end, so that every record has reached the sink. Tests add
// options (no terminal, a filter that plays the user).
func runProgram(ctx context.Context, m *tui.Model, opts ...tea.ProgramOption) error {
	_, err := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(30)}, opts...)...).Run()
	m.Wait()
	return screenEnded(ctx, "live view", err)
}

// screenEnded is how a full screen's end ends the command. Ctrl-C on it
// (an interrupt, tea.ErrInterrupted) ends it as the signal would have, with
// 130 and the report still printed. A quit, a kill or the command's
// context ending counts as nothing. Anything else is the screen's failure.
func screenEnded(ctx context.Context, screen string, err error) error {
	switch {
	case errors.Is(err, tea.ErrInterrupted):
		interrupt.Note(ctx)
	case err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, context.Canceled):
		return cannotErr(fmt.Errorf("%s: %w", screen, err))
	}
	return nil
}
