// Package progress carries out a run without a screen and says how it
// goes on stderr. It writes a line per stream when one runs at a time,
// numbered as every screen numbers streams and lettered by target when
// several take turns. Under load it writes a line of counts a second, and
// a sweep gets a line per level as the level ends.
package progress

import (
	"context"
	"fmt"
	"io"
	"strconv"
	"sync"
	"time"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// Run carries out plan and hands each record to sink as it ends. One
// stream at a time gets a line each on w, and a load gets a line of counts
// a second. Quiet prints neither.
func Run(ctx context.Context, w io.Writer, plan probe.Plan, quiet bool, sink func(*record.Record)) stats.RunStats {
	perStream := plan.Rate == 0 && plan.Concurrency <= 1 && !quiet
	stopTicker := func() {}
	if !perStream && !quiet {
		stopTicker = Ticker(w, plan.Progress, time.Second)
	}
	log := Log{W: w}
	st := probe.Run(ctx, plan, func(r *record.Record) {
		sink(r)
		if perStream {
			log.Add("  ", r)
		}
	}, nil)
	stopTicker()
	return st
}

// Sweep carries out a sweep and hands each record to sink as it ends. It
// writes a line of counts a second on w and a line per level as it ends.
func Sweep(ctx context.Context, w io.Writer, sp sweep.Plan, sink func(*record.Record)) (sweep.Result, stats.RunStats) {
	// The ticker and the level lines write from two goroutines.
	w = &syncWriter{w: w}
	stopTicker := Ticker(w, sp.Base.Progress, time.Second)
	done := 0
	res, st := sweep.Run(ctx, sp, sink, nil, func(r *sweep.Result) {
		for ; done < len(r.Levels); done++ {
			l := &r.Levels[done]
			fmt.Fprintf(w, "  %s done: %d streams, %d failed, ttft p95 %s, %s tok/s\n", sweep.Label(l.Kind, l.Level), l.Streams, l.Failed,
				textfmt.OptMS(stats.TTFT.Of(l.Metrics).P95), num(l.Throughput.TokensPerS))
		}
	})
	stopTicker()
	return res, st
}

// Interleave runs the plans in turns (probe.Interleave), each record to
// sink with its plan's index as it ends and a line on w, after the plan's
// letter.
func Interleave(ctx context.Context, w io.Writer, plans []probe.Plan, sink func(i int, r *record.Record)) {
	log := Log{W: w}
	probe.Interleave(ctx, plans, func(i int, r *record.Record) {
		sink(i, r)
		log.Add("  "+compare.Letter(i)+" ", r)
	})
}

// num is a level line's figure with one decimal, or — when undefined.
func num(v *float64) string {
	if v == nil {
		return "—"
	}
	return strconv.FormatFloat(*v, 'f', 1, 64)
}

// syncWriter serialises writes from several goroutines to one writer.
type syncWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.w.Write(p)
}

// Ticker prints the run's counts every interval until stopped.
func Ticker(w io.Writer, pg *probe.Progress, every time.Duration) (stop func()) {
	done := make(chan struct{})
	finished := make(chan struct{})
	start := time.Now()
	go func() {
		defer close(finished)
		t := time.NewTicker(every)
		defer t.Stop()
		for {
			select {
			case <-done:
				return
			case <-t.C:
				fmt.Fprintf(w, "  %7s  %d admitted · %d in flight · %d recorded",
					textfmt.MS(float64(time.Since(start).Milliseconds())), pg.Admitted.Load(), pg.InFlight.Load(), pg.Finished.Load())
				if n := pg.Warmup.Load(); n > 0 {
					fmt.Fprintf(w, " · %d warmup", n)
				}
				if n := pg.NotAdmitted.Load(); n > 0 {
					fmt.Fprintf(w, " · %d not admitted", n)
				}
				fmt.Fprintln(w)
			}
		}
	}()
	return func() { close(done); <-finished }
}

// Log writes the headless log's line per stream, under a line naming the
// phase whenever it changes to or from warmup, so that no stream's line
// needs a phase column.
type Log struct {
	W     io.Writer
	phase string
}

// Add writes r's line, after prefix.
func (l *Log) Add(prefix string, r *record.Record) {
	if r.Phase != l.phase && (r.Phase == record.PhaseWarmup || l.phase == record.PhaseWarmup) {
		title := "measured:"
		if r.Phase == record.PhaseWarmup {
			title = "warmup, excluded from every figure:"
		}
		fmt.Fprintln(l.W, "  "+title)
	}
	l.phase = r.Phase
	fmt.Fprintln(l.W, prefix+Line(r))
}

// Line is one stream's line in the headless log, numbered as every
// screen numbers streams (#1 is seq 0), within 78 columns (the prompt id
// cut to 12) unless the stream has more to say (buffered, an error). A
// stream without a token count (failed before content, no usage report)
// shows —, not 0 approximated. An approximated count (no usage report, one
// per content frame) is marked ~. Stalls are said only when there are some.
func Line(r *record.Record) string {
	tokens := "—"
	if stats.HasTokenCount(r) {
		tokens = strconv.Itoa(r.OutputTokens)
		if r.TokensSource == "approx" {
			tokens = "~" + tokens
		}
	}
	s := fmt.Sprintf("#%-3d %s %-10s ttft %7s  e2e %7s  %4s tok",
		r.Seq+1, report.PromptCell(r.PromptID), r.Status, textfmt.OptMS(r.TTFTMS), textfmt.OptMS(r.E2EMS), tokens)
	if n := len(r.Stalls); n > 0 {
		s += "  " + stats.Count(n, "stall")
	}
	if r.Buffered {
		s += "  buffered"
		if r.Delivery != nil {
			s += " (" + r.Delivery.Rule + ")"
		}
	}
	if d := r.Delivery; d != nil && d.Freezes != nil && d.PeriodMS != nil {
		s += fmt.Sprintf("  stutter (%d freezes, every %s)", d.Freezes.Count, textfmt.OptMS(d.PeriodMS))
	}
	if r.HeldMS != nil {
		s += "  held " + textfmt.OptMS(r.HeldMS)
	}
	if r.Error != nil {
		s += "  " + r.Error.Class + ": " + sanitize.Line(r.Error.Message)
	}
	if r.TokensRejected != "" {
		s += "  (" + r.TokensRejected + ")"
	}
	return s
}
