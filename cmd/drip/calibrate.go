package main

import (
	"context"
	"fmt"
	"io"
	"net/http/httptest"
	"sync"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/report"
	"github.com/driplab/drip/stats"
)

func newCalibrateCmd() *cobra.Command {
	var (
		levels []int
		rounds int
	)
	cmd := &cobra.Command{
		Use:     "calibrate",
		Example: `  drip calibrate`,
		Short:   "Measure drip's own timestamp error on this machine",
		Long: `Start the fixture server in-process on loopback, stream a known schedule
(200 frames, 10 ms apart) at several concurrency levels, and pair every frame
drip stamped with the time the server flushed it. Prints the stamp error and
the gap error (p50/p99/max) per level, drip's CPU cost per frame, and the
smallest gap difference this machine can resolve.

Run it before trusting a sub-millisecond difference between two runs.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if len(levels) == 0 {
				return usageErr("--concurrency: name at least one level")
			}
			if err := intRange("--rounds", rounds, 1, 1000); err != nil {
				return err
			}
			for _, c := range levels {
				if err := intRange("--concurrency", c, 1, 2000); err != nil {
					return err
				}
			}
			return calibrate(cmd.Context(), cmd.OutOrStdout(), levels, rounds)
		},
	}
	cmd.Flags().IntSliceVar(&levels, "concurrency", []int{1, 10, 100}, "concurrent streams at each level")
	cmd.Flags().IntVar(&rounds, "rounds", 2, "rounds of streams at each level")
	return cmd
}

// calibration is one level's pairing of client stamps with server writes.
type calibration struct {
	streams, frames, unpaired int
	stampErr, gapErr          []float64 // ms
	cpuPerFrame               time.Duration
}

func calibrate(ctx context.Context, w io.Writer, levels []int, rounds int) error {
	fsrv := fixtures.NewServer()
	srv := httptest.NewServer(fsrv)
	defer srv.Close()
	t, o, err := fixtureTarget(srv.URL, "calibrate")
	if err != nil {
		return err
	}
	o.Client = probe.NewClient(0)
	sc := fixtures.Lookup("calibrate")
	fmt.Fprintf(w, "drip calibrate · loopback · %s · %d frames %s apart per stream · %d rounds per level\n\n",
		t.Format.Name, sc.OutputTokens(), 10*time.Millisecond, rounds)
	fmt.Fprintf(w, "%-12s %7s %8s │ %-28s │ %-28s │ %s\n", "concurrency", "streams", "frames",
		"stamp error ms p50/p99/max", "gap error ms p50/p99/max", "CPU/frame (client+server)")
	var resolve float64
	for _, c := range levels {
		cal := calibrateLevel(ctx, fsrv, t, o, c, rounds)
		if ctx.Err() != nil {
			return cannotErr(ctx.Err())
		}
		se, ge := stats.NewDist(cal.stampErr), stats.NewDist(cal.gapErr)
		fmt.Fprintf(w, "%-12d %7d %8d │ %8s %9s %9s │ %8s %9s %9s │ %s\n", c, cal.streams, cal.frames,
			report.Num(se.P50), report.Num(se.P99), report.Num(se.Max),
			report.Num(ge.P50), report.Num(ge.P99), report.Num(ge.Max), cal.cpuPerFrame)
		if cal.unpaired > 0 {
			fmt.Fprintf(w, "  %d frames could not be paired with a server write\n", cal.unpaired)
		}
		if c <= 10 && ge.P99 != nil && *ge.P99 > resolve {
			resolve = *ge.P99
		}
	}
	decodeCost, err := decodeCostPerFrame(t.Format, sc)
	if err != nil {
		return cannotErr(err)
	}
	fmt.Fprintf(w, "\ndecode + classify + stamp, without the socket: %s per frame (%.0f frames/s on one core)\n",
		decodeCost, float64(time.Second)/float64(decodeCost))
	fmt.Fprintf(w, "stamp error = drip's read time − the server's flush time; gap error = |client gap − server gap|.\n")
	fmt.Fprintf(w, "verdict: at up to 10 concurrent streams this machine resolves gap differences of %s ms or more (p99 gap error).\n",
		report.FormatFloat(max(resolve, 0.001)))
	return nil
}

func calibrateLevel(ctx context.Context, fsrv *fixtures.Server, t probe.Target, o probe.Options, c, rounds int) calibration {
	var cal calibration
	cpu0 := cpuTime()
	for r := range rounds {
		recs := make([]*record.Record, c)
		var wg sync.WaitGroup
		for i := range c {
			wg.Go(func() {
				tt := t
				tt.Request.Model = fmt.Sprintf("calibrate#c%d-r%d-s%d", c, r, i)
				recs[i] = probe.Stream(ctx, tt, o, &record.Record{Seq: i}, nil)
			})
		}
		wg.Wait()
		for _, rec := range recs {
			cal.streams++
			pairFrames(&cal, rec, fsrv.Writes(rec.Model))
		}
	}
	if cal.frames > 0 {
		cal.cpuPerFrame = (cpuTime() - cpu0) / time.Duration(cal.frames)
	}
	return cal
}

// pairFrames pairs the i-th content frame drip stamped with the server's
// i-th content write, both on this process's monotonic clock.
func pairFrames(cal *calibration, rec *record.Record, writes []fixtures.Write) {
	var server []time.Time
	for _, w := range writes {
		if w.Kind.IsContent() {
			server = append(server, w.At)
		}
	}
	var prevC, prevS time.Time
	i := 0
	for _, f := range rec.Frames {
		if !f.IsContent() {
			continue
		}
		if i >= len(server) {
			cal.unpaired++
			continue
		}
		client := rec.Start.Add(time.Duration(f.TMS * float64(time.Millisecond)))
		cal.stampErr = append(cal.stampErr, msOf(client.Sub(server[i])))
		if i > 0 {
			cal.gapErr = append(cal.gapErr, abs(msOf(client.Sub(prevC))-msOf(server[i].Sub(prevS))))
		}
		prevC, prevS = client, server[i]
		cal.frames++
		i++
	}
	cal.unpaired += len(server) - i
}

// decodeCostPerFrame replays the calibrate stream through the probe's
// decode path many times and divides the CPU time by the frames.
func decodeCostPerFrame(f *adapters.Format, sc *fixtures.Scenario) (time.Duration, error) {
	reads, at, err := fixtures.Render(f.Name, sc, "calibrate")
	if err != nil {
		return 0, err
	}
	times := make([]float64, len(at))
	for i, d := range at {
		times[i] = msOf(d)
	}
	const iterations = 200
	frames := 0
	rec := &record.Record{}
	cpu0 := cpuTime()
	for range iterations {
		if _, err := probe.Replay(f, reads, times, stats.DefaultStall, rec); err != nil {
			return 0, err
		}
		frames += len(rec.Frames)
	}
	return (cpuTime() - cpu0) / time.Duration(frames), nil
}

// cpuTime is the CPU this process has used, user and system.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func msOf(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}
