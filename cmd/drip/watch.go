package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"sync"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/report"
	"github.com/driplab/drip/tui"
)

func newWatchCmd() *cobra.Command {
	var (
		req requestFlags
		out outputFlags
	)
	cmd := &cobra.Command{
		Use:   "watch URL",
		Short: "Watch one stream live: the wait, every frame, every stall where it happened",
		Long: `Open a streaming request and show it as it arrives: a timeline of every
frame, the text with a marker where each stall happened, the three clocks
(wait, stream, tail), the gap histogram and a heatmap of runs. Press r to
run it again: earlier runs stay on the same time axis, so a stall that
recurs lines up.

Without a terminal (a pipe, CI) or with --no-tui or --json, it measures one
stream and prints the headless report instead.`,
		Example: `  drip watch http://localhost:8000 -m my-model
  drip watch https://api.openai.com -m gpt-4o-mini --out watch.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := out.parseGates(); err != nil {
				return err
			}
			t, o, err := req.build(args[0])
			if err != nil {
				return err
			}
			if !useTUI(&out) {
				plan := probe.Plan{Target: t, Options: o, Runs: 1, PromptID: "p0"}
				return runHeadless(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), plan, &out)
			}
			runID := probe.NewRunID()
			src := tui.Source{Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *probe.Record {
				rec := &probe.Record{RunID: runID, Seq: seq, Phase: probe.PhaseMeasure, PromptID: "p0"}
				return probe.Stream(ctx, t, o, rec, observe)
			}}
			return runTUI(cmd.Context(), tui.Config{Sources: []tui.Source{src}, StallMS: o.StallMS}, &out)
		},
	}
	req.register(cmd.Flags())
	out.register(cmd.Flags())
	return cmd
}

// useTUI reports whether to open the live view: both ends of the terminal
// must be one (Bubble Tea would otherwise try /dev/tty), and no flag asks
// for plain output.
func useTUI(out *outputFlags) bool {
	return !out.noTUI && !out.json && term.IsTerminal(os.Stdin.Fd()) && term.IsTerminal(os.Stdout.Fd())
}

// runTUI runs the live view until the user quits. Records go to --out and
// --csv as each stream ends, including a stream canceled by quitting; the
// --fail-if gates are checked over the finished runs afterwards.
func runTUI(ctx context.Context, cfg tui.Config, out *outputFlags) error {
	var (
		mu    sync.Mutex
		sinks []func(*probe.Record) error
		recs  []*probe.Record
		werr  error
	)
	if out.out != "" {
		w, err := probe.Create(out.out)
		if err != nil {
			return cannotErr(fmt.Errorf("--out: %w", err))
		}
		defer w.Close()
		sinks = append(sinks, w.Write)
	}
	if out.csv != "" {
		f, err := probe.CreatePrivate(out.csv)
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
	cfg.Sink = func(r *probe.Record) {
		mu.Lock()
		defer mu.Unlock()
		recs = append(recs, r)
		for _, s := range sinks {
			if err := s(r); err != nil && werr == nil {
				werr = err
			}
		}
	}
	cfg.Color = os.Getenv("NO_COLOR") == ""
	m := tui.New(ctx, cfg)
	if err := runProgram(ctx, m); err != nil {
		return err
	}
	mu.Lock()
	defer mu.Unlock()
	if werr != nil {
		return cannotErr(fmt.Errorf("writing records: %w", werr))
	}
	if out.out != "" {
		fmt.Fprintf(os.Stderr, "drip: %d records written to %s\n", len(recs), out.out)
	}
	return checkGates(os.Stderr, recs, cfg.StallMS, out)
}

// runProgram runs a live view until the user quits, then waits for its
// streams to end, so that every record has reached the sink. Tests add
// options (no terminal, a filter that plays the user).
func runProgram(ctx context.Context, m *tui.Model, opts ...tea.ProgramOption) error {
	_, err := tea.NewProgram(m, append([]tea.ProgramOption{tea.WithContext(ctx), tea.WithFPS(30)}, opts...)...).Run()
	m.Wait()
	if err != nil && !errors.Is(err, tea.ErrProgramKilled) && !errors.Is(err, tea.ErrInterrupted) {
		return cannotErr(fmt.Errorf("live view: %w", err))
	}
	return nil
}

// checkGates evaluates --fail-if over the records of a live session.
func checkGates(w io.Writer, recs []*probe.Record, stallMS float64, out *outputFlags) error {
	if len(out.gates) == 0 {
		return nil
	}
	a := probe.NewAggregate(stallMS)
	for _, r := range recs {
		a.Add(r)
	}
	s := a.Summary(probe.Workload{})
	tripped := false
	for _, g := range out.gates {
		r := g.Eval(&s)
		tripped = tripped || r.Tripped
		mark := "ok  "
		if r.Tripped {
			mark = "FAIL"
		}
		fmt.Fprintf(w, "  %s %s — %s\n", mark, r.Expr, r.Message)
	}
	if tripped {
		return errGateTripped
	}
	return nil
}
