package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/calibrate"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/sweep"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
)

func newCalibrateCmd() *cobra.Command {
	var (
		levels     = sweep.Levels{Vals: []float64{1, 10, 100}, Whole: true} // run's -c shape
		rounds     int
		serverProc bool
	)
	cmd := &cobra.Command{
		Use: "calibrate",
		Example: `  drip calibrate
  drip calibrate --server-proc --concurrency 1,100,1000 --rounds 1
  drip calibrate --concurrency 1 --rounds 10`,
		Short: "Measure drip's own timestamp error on this machine",
		Long: `Start the fixture server on loopback, stream a known schedule (200 frames,
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

Run it before trusting a sub-millisecond difference between two runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := intRange("--rounds", rounds, 1, 1000); err != nil {
				return err
			}
			var ls []int
			for _, c := range levels.Vals {
				if err := intRange("--concurrency", int(c), 1, 2000); err != nil {
					return err
				}
				ls = append(ls, int(c))
			}
			srv, err := calibrationServer(cmd.Context(), serverProc)
			if err != nil {
				return cannotErr(err)
			}
			defer srv.Close()
			return runCalibrate(cmd.Context(), cmd.OutOrStdout(), srv, serverProc, ls, rounds)
		},
	}
	cmd.Flags().VarP(&levels, "concurrency", "c", "concurrent streams at each level, a rising list")
	cmd.Flags().IntVar(&rounds, "rounds", 2, "rounds of streams at each level")
	cmd.Flags().BoolVar(&serverProc, "server-proc", false, "serve from a separate process, so drip's client is measured alone")
	return cmd
}

// newCalibrateServerCmd is the separate process --server-proc starts: the
// fixture server with its write log, until its stdin closes.
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

func calibrationServer(ctx context.Context, separate bool) (calibrate.Server, error) {
	if !separate {
		return calibrate.InProcess(), nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("--server-proc: %w", err)
	}
	return calibrate.Process(ctx, exe, "fixtures", "calibrate-server")
}

func runCalibrate(ctx context.Context, w io.Writer, srv calibrate.Server, separate bool, levels []int, rounds int) error {
	t, o, err := fixtureTarget(srv.URL(), calibrate.Scenario)
	if err != nil {
		return err
	}
	o.Client = probe.NewClient(0)
	where := "server in drip's process"
	if separate {
		where = "server in a separate process"
	}
	report.Para(w, "", "  ", fmt.Sprintf("drip calibrate · loopback · %s · %s · %d frames %s apart per stream · %s per level",
		where, t.Format.Name, fixtures.Lookup(calibrate.Scenario).OutputTokens(), 10*time.Millisecond, stats.Count(rounds, "round")))
	fmt.Fprintln(w)
	fmt.Fprintf(w, "%-19s  %-20s  %-20s  %s\n", "", "stamp error ms", "gap error ms", "TTFT error ms")
	fmt.Fprintf(w, levelRow, "conc", "streams", "frames", "p50", "p99", "max", "p50", "p99", "max", "p50", "p99")
	var (
		resolve   *float64
		upTo      int // the largest unsaturated level of up to 10 streams the verdict reads
		saturated []string
		small     bool // a level of up to 10 streams ran
	)
	for _, c := range levels {
		l, err := calibrate.Run(ctx, srv, t, o, c, rounds)
		if ctx.Err() != nil {
			return cannotErr(ctx.Err())
		}
		if err != nil {
			return cannotErr(err)
		}
		v := l.Load.Judge()
		ge := printLevel(w, l, v)
		small = small || c <= 10
		if v.Saturated {
			saturated = append(saturated, fmt.Sprint(c))
		} else if c <= 10 && ge.P99 != nil {
			upTo = max(upTo, c)
			if resolve == nil || *ge.P99 > *resolve {
				resolve = ge.P99
			}
		}
	}
	dc, err := calibrate.DecodeCost(t.Format)
	if err != nil {
		return cannotErr(err)
	}
	if dc != nil {
		fmt.Fprintln(w)
		report.Para(w, "", "  ", fmt.Sprintf("decode + classify + stamp, without the socket: %s per frame (%.0f frames/s on one core)",
			dc, float64(time.Second)/float64(*dc)))
	}
	report.Para(w, "", "  ", "conc = concurrent streams; stamp error = drip's read time − the server's flush time; "+
		"gap error = |client gap − server gap|; TTFT error = drip's TTFT − the server's (request arrival → first content flush): "+
		"the request's trip and one stamp.")
	printVerdict(w, resolve, upTo, saturated, separate, small)
	return nil
}

// printLevel prints a level's row and its load line, and returns the gap
// error's distribution.
func printLevel(w io.Writer, l calibrate.Level, v calibrate.Verdict) stats.Dist {
	se, ge, te := stats.NewDist(l.StampErr), stats.NewDist(l.GapErr), stats.NewDist(l.TTFTErr)
	cpu := "CPU per frame " + duration(l.ClientCPU)
	if l.ServerCPU != nil {
		cpu = "CPU per frame client " + duration(l.ClientCPU) + " · server " + duration(l.ServerCPU)
	}
	fmt.Fprintf(w, levelRow, strconv.Itoa(l.Concurrency), strconv.Itoa(l.Streams), strconv.Itoa(l.Frames),
		textfmt.Num(se.P50), textfmt.Num(se.P99), textfmt.Num(se.Max),
		textfmt.Num(ge.P50), textfmt.Num(ge.P99), textfmt.Num(ge.Max),
		textfmt.Num(te.P50), textfmt.Num(te.P99))
	if l.Unpaired > 0 {
		fmt.Fprintf(w, "  %d frames could not be paired with a server write\n", l.Unpaired)
	}
	for _, line := range strings.Split(cpu+" · "+loadLine(l.Load, v), "\n") {
		report.Para(w, "  ", "    ", line)
	}
	return ge
}

// levelRow is a level's row of the table, 78 columns: the level, then
// the stamp, gap and TTFT errors as p50 p99 max (TTFT: p50 p99).
const levelRow = "%-4s %7s %6s  %6s %6s %6s  %6s %6s %6s  %6s %6s\n"

func loadLine(ld calibrate.Load, v calibrate.Verdict) string {
	s := "load: schedule lag p99 client " + lagText(ld.ClientLag)
	if ld.ServerLag != nil {
		s += ", server " + lagText(*ld.ServerLag)
	}
	s += fmt.Sprintf(" · drip %s, machine %s of %d cores", cores(ld.DripCores), cores(ld.MachineCores), ld.Cores)
	if !v.Saturated {
		return s + " · not saturated"
	}
	who := ""
	if v.Who != "" {
		who = ", loaded by " + v.Who
	}
	return s + "\n⚠ saturated (" + strings.Join(v.Reasons, "; ") + who + "): this row measures the machine, not drip"
}

// printVerdict says the resolution: the worst p99 gap error of the
// unsaturated levels of up to 10 streams, the largest of which is upTo.
func printVerdict(w io.Writer, resolve *float64, upTo int, saturated []string, separate, small bool) {
	if len(saturated) > 0 {
		try := "--server-proc, fewer streams"
		if separate {
			try = "fewer streams"
		}
		report.Para(w, "", "  ", fmt.Sprintf("saturated at %s streams: those rows measure this machine's load, not drip; "+
			"the verdict leaves them out (try %s, or a quieter machine).", strings.Join(saturated, ", "), try))
	}
	switch {
	case !small:
		report.Para(w, "", "  ", "verdict: none: the resolution is read at up to 10 concurrent streams (add one, e.g. --concurrency 1,1000).")
		return
	case resolve == nil:
		report.Para(w, "", "  ", "verdict: no unsaturated level at up to 10 concurrent streams: nothing to resolve gap differences by; measure when the machine is quiet.")
		return
	}
	report.Para(w, "", "  ", fmt.Sprintf("verdict: at up to %s this machine resolves gap differences of %s ms or more (p99 gap error).",
		stats.Count(upTo, "concurrent stream"), textfmt.FormatFloat(max(*resolve, 0.001))))
}

func lagText(d stats.Dist) string {
	if d.P99 == nil {
		return "—"
	}
	return textfmt.Num(d.P99) + " ms"
}

func cores(v *float64) string {
	if v == nil {
		return "—"
	}
	return fmt.Sprintf("%.2f", *v)
}

func duration(d *time.Duration) string {
	if d == nil {
		return "—"
	}
	return d.Round(100 * time.Nanosecond).String()
}
