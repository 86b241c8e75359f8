package main

import (
	"context"
	"fmt"
	"io"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/calibrate"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/sweep"
)

func newCalibrateCmd() *cobra.Command {
	var (
		levels     = sweep.Levels{Vals: []float64{1, 10, 100}, Whole: true} // run's -c shape
		rounds     int
		serverProc bool
	)
	cmd := &cobra.Command{
		Use:     "calibrate",
		Example: calibrateExample,
		Short:   "Measure drip's own timestamp error on this machine",
		Long:    calibrateLong,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return runCalibrate(cmd.Context(), cmd.OutOrStdout(), levels.Vals, rounds, serverProc)
		},
	}
	cmd.Flags().VarP(&levels, "concurrency", "c", "concurrent streams at each level, a rising list")
	cmd.Flags().IntVar(&rounds, "rounds", 2, "rounds of streams at each level")
	cmd.Flags().BoolVar(&serverProc, "server-proc", false, "serve from a separate process, so drip's client is measured alone")
	return cmd
}

// newCalibrateServerCmd is the separate process --server-proc starts. It
// runs the fixture server with its write log until its stdin closes.
func newCalibrateServerCmd() *cobra.Command {
	return &cobra.Command{
		Use:    "calibrate-server",
		Short:  "The server process of drip calibrate --server-proc",
		Hidden: true,
		Args:   cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			return calibrate.ServeChild(cmd.Context(), cmd.InOrStdin(), cmd.OutOrStdout())
		},
	}
}

// runCalibrate is drip calibrate. It starts the server, streams the levels
// and writes the report.
func runCalibrate(ctx context.Context, w io.Writer, levels []float64, rounds int, separate bool) error {
	c := calibrate.Config{Separate: separate, Rounds: rounds}
	for _, l := range levels {
		c.Levels = append(c.Levels, int(l))
	}
	if err := c.Check(); err != nil {
		return usageErr("%v", err)
	}
	srv, err := calibrate.Start(ctx, separate, "fixtures", "calibrate-server")
	if err != nil {
		return cannotErr(err)
	}
	defer srv.Close()
	if c.Target, c.Options, err = fixtureTarget(srv.URL(), calibrate.Scenario); err != nil {
		return err
	}
	c.Server, c.Options.Client = srv, probe.NewClient(0)
	if err := calibrate.Measure(ctx, w, c); err != nil {
		return cannotErr(err)
	}
	return nil
}

// calibrateLong is drip calibrate's --help text.
var calibrateLong = `Start the fixture server on loopback, stream a known schedule (200 frames,
10 ms apart) at several concurrency levels, and pair every frame drip
stamped with the time the server flushed it. Prints per level the stamp
error, the gap error and the TTFT error (p50/p99/max), drip's CPU per frame,
and the smallest gap difference this machine can resolve.

The server runs in drip's own process unless --server-proc starts it as a
separate process (this drip binary, re-run), so drip's client is measured
alone and the server's CPU is counted apart.

Each level also says what the machine did meanwhile: the schedule lag
(how long runnable goroutines waited for a core, p99, client and server)
and the CPU drip and the whole machine used. A level is saturated when a
schedule lag p99 reaches ` + fmt.Sprint(calibrate.LagBoundMS) + ` ms or the machine's cores are ` + fmt.Sprint(calibrate.BusyShare*100) + ` % busy: its
errors then measure the machine, not drip, the row says so and names who
loaded it, and the verdict leaves it out.

Run it before trusting a sub-millisecond difference between two runs.`

// calibrateExample is drip calibrate's --help examples.
var calibrateExample = `  drip calibrate
  drip calibrate --server-proc --concurrency 1,100,1000 --rounds 1
  drip calibrate --concurrency 1 --rounds 10`
