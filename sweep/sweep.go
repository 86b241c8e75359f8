// Package sweep runs one workload at rising load levels, closed-loop
// concurrencies or open-loop rates, as parts of one run, and says where
// the stream starts to suffer. Run carries out a Plan through probe.Run
// and returns a Result, and OfRecords recomputes one from saved records. A
// Result holds a table of figures per level, the knee (the first level
// where latency rises, beyond noise, without throughput following) and
// where an optional stop condition ended the sweep. The figures of a level
// come from its records through stats.Aggregate, exactly as a run's report
// does. Text, Markdown and Plots render a Result, and the views package
// draws it on a terminal.
package sweep

import (
	"context"
	"fmt"
	"strconv"
	"time"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// What a sweep varies.
const (
	KindConcurrency = "concurrency" // a closed loop of streams in flight
	KindRate        = "rate"        // an open loop of arrivals per second
)

// Plan is a sweep, the workload of every level and the levels in the
// order they run. Base's Runs or Duration are per level, and its Warmup
// runs again at each level.
type Plan struct {
	Base   probe.Plan
	Kind   string    // KindConcurrency or KindRate
	Levels []float64 // concurrencies (whole numbers) or rates
	// StopWhen ends the sweep after the first level where any of these
	// gates holds on the level's own figures.
	StopWhen []stats.Gate
	// SLO, when set, is held against every stream. Each level then reports
	// its goodput, the share of its streams meeting it.
	SLO *stats.SLO
}

// Result is a sweep's outcome, as the summary's "sweep" object.
type Result struct {
	Kind   string  `json:"kind"`
	Levels []Level `json:"levels"` // the levels that ran, in order
	// Knee is the first level where latency rose without throughput
	// following (KneeRule). It is nil when none did.
	Knee     *Knee    `json:"knee"`
	KneeRule string   `json:"knee_rule"`
	StopWhen []string `json:"stop_when,omitempty"`
	// Stopped says why the sweep ended before its last level. It is nil
	// when every level ran.
	Stopped *string `json:"stopped"`
	// Planned are every level asked for, run or not.
	Planned []float64 `json:"planned"`
	// Running is the level now running, for a live view. It is nil
	// between and after levels.
	Running *float64 `json:"-"`
}

// Run carries out the sweep. Each level runs the base plan at that
// concurrency or rate through probe.Run, with its own warmup. The records
// carry the level, and share one run ID, one sequence and one time axis
// across the levels. sink and observe are probe.Run's. update, when set,
// sees the result so far as each level starts and ends, from Run's
// goroutine, and must not keep the pointer. Run returns the result and the runner's
// statistics pooled over the levels.
func Run(ctx context.Context, p Plan, sink func(*record.Record), observe func(probe.Event), update func(*Result)) (Result, stats.RunStats) {
	base := p.Base
	if base.RunID == "" {
		base.RunID = probe.NewRunID()
	}
	if base.Progress == nil {
		base.Progress = &probe.Progress{}
	}
	if base.Options.Client == nil {
		// One connection pool for the sweep, as for one run.
		base.Options.Client = probe.ClientFor(base.Options)
	}
	clock := base.Options.Clock
	if clock == nil {
		clock = time.Now
	}
	base.Start = clock()
	res := Result{Kind: p.Kind, KneeRule: KneeRule, Planned: p.Levels}
	for _, g := range p.StopWhen {
		res.StopWhen = append(res.StopWhen, g.Expr)
	}
	if update == nil {
		update = func(*Result) {}
	}
	var runs []stats.RunStats
	seq := 0
	for _, lv := range p.Levels {
		res.Running = &lv
		update(&res)
		lp := levelPlan(base, p.Kind, lv, seq)
		acc := newLevelAcc(lv, p.Kind, base.Options.StallMS)
		acc.agg.SLO = p.SLO
		st := probe.Run(ctx, lp, func(r *record.Record) {
			seq = max(seq, r.Seq+1)
			acc.add(r)
			sink(r)
		}, observe)
		runs = append(runs, st)
		l := acc.level(&st, ctx.Err() != nil)
		res.Levels = append(res.Levels, l)
		res.Running = nil
		res.Knee = FindKnee(res.Levels)
		if ctx.Err() != nil {
			res.Stopped = new(fmt.Sprintf("interrupted during %s: the level is partial", Label(p.Kind, lv)))
		} else if why := stopReason(p.StopWhen, &l); why != "" {
			res.Stopped = &why
		}
		update(&res)
		if res.Stopped != nil {
			break
		}
	}
	return res, stats.CombineRunStats(runs...)
}

// levelPlan is the base plan at one level, numbering its streams from
// seq. A record's workload states its own level's load.
func levelPlan(base probe.Plan, kind string, lv float64, seq int) probe.Plan {
	p := base
	p.Level, p.FirstSeq = &lv, seq
	if kind == KindRate {
		p.Rate, p.Concurrency = lv, 0
	} else {
		p.Concurrency, p.Rate = int(lv), 0
	}
	if base.Workload != nil {
		w := *base.Workload
		w.Concurrency, w.Rate = p.Concurrency, p.Rate
		p.Workload = &w
	}
	return p
}

// stopReason is why --stop-when ends the sweep after this level, or "".
func stopReason(gates []stats.Gate, l *Level) string {
	for _, g := range gates {
		if r := g.Eval(&l.summary); r.Tripped {
			return fmt.Sprintf("--stop-when '%s' held at %s: %s", g.Expr, Label(l.Kind, l.Level), r.Message)
		}
	}
	return ""
}

// Label names a level, as in "concurrency 8" or "rate 2.5/s".
func Label(kind string, lv float64) string {
	if kind == KindRate {
		return "rate " + strconv.FormatFloat(lv, 'g', -1, 64) + "/s"
	}
	return fmt.Sprintf("concurrency %d", int(lv))
}
