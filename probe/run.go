package probe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"sync/atomic"
	"time"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Plan is a run. It says which target, which prompts, how many streams and
// under what load. With Rate > 0 it is an open loop, with arrivals on a
// schedule. Otherwise it is a closed loop of Concurrency streams in flight.
type Plan struct {
	Target  Target
	Options Options
	// Prompts are sent in an order shuffled per round (one round = each
	// prompt once), seeded by Seed. When Prompts is empty the run sends
	// Target.Request as is, named PromptID (DefaultPromptID when empty).
	Prompts  []Prompt
	PromptID string
	Runs     int           // measured streams, or 0 to run until Duration ends
	Duration time.Duration // stop admitting after this long, or 0 to let Runs decide
	Warmup   int           // warmup streams per prompt, before measuring
	// Concurrency is the closed loop's streams in flight (0 means 1). Warmup
	// runs as a closed loop of this many (one at a time in an open loop).
	Concurrency int
	Rate        float64 // the open loop's arrivals per second
	Arrival     string  // ArrivalConstant, ArrivalPoisson, ArrivalGamma or ArrivalTrace
	Burstiness  float64 // ArrivalGamma's shape (vLLM's --burstiness)
	// Ramp is how long the open loop's rate takes to rise from 0 to Rate.
	Ramp time.Duration
	// Schedule is a trace's arrival times (ArrivalTrace). Arrival i is sent
	// at Schedule[i] with Prompts[i], in the file's order.
	Schedule []time.Duration
	// Lengths are the prompt and output lengths asked for and where the
	// prompts came from, kept in the workload so runs of other lengths
	// compare as different workloads.
	Lengths     record.Lengths
	MaxInflight int // an open loop admits no arrival beyond this many streams in flight (0 means DefaultMaxInflight)
	Seed        int64
	RunID       string    // generated when empty
	Progress    *Progress // updated live when set, for views to poll
	// A sweep runs one plan per level as parts of one run. Level is stamped
	// on every record, and FirstSeq continues the numbering. Start keeps
	// every level's offsets on the sweep's time axis, and zero means now.
	Level    *float64
	FirstSeq int
	Start    time.Time
	// Shard and Shards make this agent one of Shards running one seeded
	// workload. It sends only the streams whose index in the whole
	// sequence is Shard mod Shards, each with the prompt, schedule time
	// and seq one agent would give it. Shards 0 or 1 means the whole
	// workload.
	Shard, Shards int
	// Workload is stamped on every record, so runs read back from disk can
	// be checked for a fair comparison.
	Workload *record.RecordWorkload
	// Host and Labels are stamped on every record (Record.Host, .Labels).
	Host   string
	Labels map[string]string
}

// Open-loop arrival processes.
const (
	ArrivalConstant = "constant" // one arrival every 1/rate
	ArrivalPoisson  = "poisson"  // exponential gaps of mean 1/rate
	ArrivalGamma    = "gamma"    // gamma gaps of mean 1/rate, shape Burstiness
	ArrivalTrace    = "trace"    // a trace's timestamps (Schedule)
)

// Workload defaults and bounds.
const (
	DefaultMaxInflight = 256
)

// Progress is a run's live accounting, safe to read while the run goes on.
type Progress struct {
	Attempted   atomic.Int64 // measured arrivals, admitted or not
	Admitted    atomic.Int64 // measured streams started
	NotAdmitted atomic.Int64 // open-loop arrivals over --max-inflight
	InFlight    atomic.Int64 // streams started and not yet recorded, warmup included
	Finished    atomic.Int64 // measured streams recorded
	Warmup      atomic.Int64 // warmup streams recorded
	// The open-loop generator's lag behind its schedule so far, for live
	// views. RunStats.Lag has its distribution once the run ends.
	LagMax  atomic.Int64 // ns, the largest so far
	LagOver atomic.Int64 // arrivals later than ScheduleLagBoundMS
}

// addLag notes one arrival's lag. Only the generator calls it.
func (pg *Progress) addLag(d time.Duration) {
	if int64(d) > pg.LagMax.Load() {
		pg.LagMax.Store(int64(d))
	}
	if ms(d) > stats.ScheduleLagBoundMS {
		pg.LagOver.Add(1)
	}
}

// NewRunID returns a short random run identifier.
func NewRunID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run carries out a plan. It runs warmup streams first (phase "warmup"),
// then the measured ones as a closed or open loop. It returns when every stream
// admitted has been recorded.
//
// Each record is handed to sink as soon as it ends, from one goroutine at a
// time, in the order streams end. observe sees every stream's events as it
// unfolds, and Event.Seq tells streams apart. It is called from many
// goroutines at once and must not block. Event says what it may keep.
// A live view subscribes with observe, sink and Plan.Progress.
//
// When ctx is done the run stops admitting, in-flight streams are canceled
// and recorded with class "canceled", and Run returns once they are.
func Run(ctx context.Context, p Plan, sink func(*record.Record), observe func(Event)) stats.RunStats {
	// One client and one OS sampler for every stream.
	o := p.Options.withDefaults()
	if o.CPU == nil {
		o.CPU = StartCPUSampler()
		defer o.CPU.Stop()
	}
	if p.RunID == "" {
		p.RunID = NewRunID()
	}
	if p.Progress == nil {
		p.Progress = &Progress{}
	}
	// Room for every stream in flight to hand its record over at once.
	r := &runner{plan: p, o: o, observe: observe, records: make(chan *record.Record, max(64, p.InFlight()))}
	sunk := make(chan struct{})
	go func() {
		r.sink(sink)
		close(sunk)
	}()

	r.start = p.Start
	if r.start.IsZero() {
		r.start = o.Clock()
	}
	prompts := p.prompts()
	if p.Warmup > 0 {
		conc := p.Concurrency
		if p.Rate > 0 {
			conc = 1
		}
		pick := newPicker(prompts, p.Seed, warmupStream, p.Warmup*len(prompts)).sharded(p.Shard, p.Shards)
		r.closed(ctx, max(conc, 1), time.Time{}, record.PhaseWarmup, pick)
	}
	var st stats.RunStats
	sched := startSchedWatch()
	if ctx.Err() == nil {
		pick := newPicker(prompts, p.Seed, orderStream, p.Runs)
		pick.inOrder = p.Arrival == ArrivalTrace
		if p.Rate > 0 {
			// The open loop draws every arrival's prompt and skips the
			// arrivals of other shards itself, keeping their times.
			st = r.open(ctx, pick)
		} else {
			var deadline time.Time
			if p.Duration > 0 {
				deadline = o.Clock().Add(p.Duration)
			}
			r.closed(ctx, max(p.Concurrency, 1), deadline, record.PhaseMeasure, pick.sharded(p.Shard, p.Shards))
		}
	}
	st.SchedLatency = sched.dist()
	close(r.records)
	<-sunk
	return st
}

// offsets is the open loop's schedule. It is a trace's times, or arrivals
// drawn at the plan's rate.
func (p *Plan) offsets() Offsets {
	if p.Arrival == ArrivalTrace {
		return Schedule(p.Schedule)
	}
	return Arrivals{Kind: p.Arrival, Rate: p.Rate, Burstiness: p.Burstiness, Ramp: p.Ramp, Seed: p.Seed}.Pacer()
}

// InFlight is the most streams p can have in flight at once.
func (p *Plan) InFlight() int {
	if p.Rate > 0 {
		return p.InflightLimit()
	}
	return max(p.Concurrency, 1)
}

// InflightLimit is the open loop's bound on streams in flight.
func (p *Plan) InflightLimit() int {
	if p.MaxInflight > 0 {
		return p.MaxInflight
	}
	return DefaultMaxInflight
}

// prompts returns the plan's prompt set.
func (p *Plan) prompts() []Prompt {
	if len(p.Prompts) > 0 {
		return p.Prompts
	}
	id := p.PromptID
	if id == "" {
		id = DefaultPromptID
	}
	return []Prompt{{ID: id, Text: p.Target.Request.Prompt}}
}

// PromptIDs are the ids of the plan's prompts, in order.
func (p *Plan) PromptIDs() []string {
	var ids []string
	for _, pr := range p.prompts() {
		ids = append(ids, pr.ID)
	}
	return ids
}

// OrderPolicy states how prompts were ordered, for the summary.
func (p *Plan) OrderPolicy() string {
	n := len(p.prompts())
	switch {
	case p.Arrival == ArrivalTrace:
		return fmt.Sprintf("the trace's order (%d lines, each once)", n)
	case n == 1:
		return "one prompt"
	}
	return fmt.Sprintf("shuffled per round (each of the %d prompts once per round), seed %d", n, p.Seed)
}

// runner is one Run's shared state.
type runner struct {
	plan    Plan
	o       Options
	observe func(Event)
	records chan *record.Record
	start   time.Time
}

// sink hands each record on as it comes, paced to leave the streams still
// in flight their share of the machine.
func (r *runner) sink(sink func(*record.Record)) {
	var pace sinkPace // uses the wall clock, as it paces this machine's work, whatever o.Clock measures
	for rec := range r.records {
		t0 := time.Now()
		sink(rec)
		if rest := pace.after(time.Since(t0), r.plan.Progress.InFlight.Load(), len(r.records), cap(r.records)); rest > 0 {
			time.Sleep(rest)
		}
	}
}

// seqOf numbers the k-th stream of a phase. Warmup streams come first, then
// the measured ones, so a stream's seq is the same in a sharded run as in one
// agent's.
func (r *runner) seqOf(phase string, k int) int {
	if phase == record.PhaseWarmup {
		return r.plan.FirstSeq + k
	}
	return r.plan.FirstSeq + r.plan.Warmup*len(r.plan.prompts()) + k
}

// stream sends the k-th request of its phase and hands its record on.
// intended is the open-loop schedule's start, on the run's time axis (ms).
func (r *runner) stream(ctx context.Context, phase string, pr Prompt, k int, intended *float64) {
	t := r.plan.Target
	if t.Body == nil {
		t.Request.Prompt = pr.Text
		if pr.MaxTokens > 0 {
			t.Request.MaxTokens = pr.MaxTokens
		}
	}
	rec := &record.Record{
		RunID: r.plan.RunID, Seq: r.seqOf(phase, k), Phase: phase, PromptID: pr.ID,
		IntendedStartMS: intended, Workload: r.plan.Workload, Host: r.plan.Host, Labels: r.plan.Labels,
		Level: r.plan.Level,
	}
	Stream(ctx, t, r.o, rec, r.observe)
	// Stream set Start just before sending (or when it gave up before).
	rec.RunOffsetMS = ms(rec.Start.Sub(r.start))
	r.records <- rec
	if phase == record.PhaseWarmup {
		r.plan.Progress.Warmup.Add(1)
	} else {
		r.plan.Progress.Finished.Add(1)
	}
}

// closed keeps conc streams in flight until the picker runs out, the
// deadline passes or ctx is done. A stream's slot is refilled as soon as it
// has been recorded.
func (r *runner) closed(ctx context.Context, conc int, deadline time.Time, phase string, pick *picker) {
	pg := r.plan.Progress
	ClosedLoop(ctx, conc, func() bool {
		if !deadline.IsZero() && !r.o.Clock().Before(deadline) {
			return false
		}
		pr, k, ok := pick.next()
		if !ok {
			return false
		}
		if phase == record.PhaseMeasure {
			pg.Attempted.Add(1)
			pg.Admitted.Add(1)
		}
		pg.InFlight.Add(1)
		r.stream(ctx, phase, pr, k, nil)
		pg.InFlight.Add(-1)
		return true
	})
}

// open sends arrivals on the plan's schedule (OpenLoop), admitting an
// arrival only while fewer than MaxInflight streams are in flight.
func (r *runner) open(ctx context.Context, pick *picker) stats.RunStats {
	p := &r.plan
	origin := r.o.Clock()
	originMS := ms(origin.Sub(r.start))
	l := OpenLoop{
		Pacer: Bounded(p.offsets(), p.Runs, p.Duration),
		Limit: p.InflightLimit(), Clock: r.o.Clock, Progress: p.Progress,
	}
	return l.Run(ctx, origin, func(i int) func(time.Duration) {
		// Drawn for every arrival, admitted or not, so an arrival's prompt
		// does not depend on which shard sends it or what was dropped.
		pr, _, _ := pick.next()
		if p.Shards > 1 && i%p.Shards != p.Shard {
			return nil
		}
		return func(at time.Duration) {
			intended := originMS + ms(at)
			r.stream(ctx, record.PhaseMeasure, pr, i, &intended)
		}
	})
}
