package tui

import (
	"context"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/table"
	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
	"github.com/driplab/drip/views"
)

// RunConfig is a workload for the run screen to carry out and show.
type RunConfig struct {
	Plan probe.Plan
	// Workload describes the plan in the summary (as the headless report
	// states it), so the screen's figures are the report's.
	Workload stats.Workload
	Load     string // the workload in words, for the header
	// Observe, when set, sees every event before the screen does, on the
	// probe's goroutines (bench/load counts frames with it). It must not
	// block.
	Observe func(probe.Event)
	// Sweep, when set, is carried out instead of Plan, which then only
	// sizes the progress bar. Its levels run in turn, with a panel of them.
	Sweep *sweep.Plan
}

// keepFinished bounds the finished streams the run screen keeps for its
// table, heatmap and timeline. Older ones live on in the aggregate and on
// disk (--out), so an hour-long run does not grow the view's memory.
const keepFinished = 1000

// Above busyStreams in flight, the run screen draws at most every
// busyInterval, and its O(streams) panels (table, histograms, heatmap,
// timeline, the summary) at most every slowInterval. At 1,000 streams of
// 20 frames/s on 2 cores (bench/load -tui), drip used 4.2–4.6 s of CPU per
// 10 s run drawing 30 times a second and 4.0–4.2 s drawing 10 times, and
// 3.3–4.0 s headless. That CPU is better left to the probe.
const (
	busyStreams  = 64
	busyInterval = 100 * time.Millisecond
)

// While streams are in flight the run screen takes in at most doneBudget
// finished records a tick, and any that waited doneMaxWait (takeDone).
const (
	doneBudget  = 32
	doneMaxWait = time.Second
)

// runStream is one stream of the run as the screen knows it.
type runStream struct {
	phase views.Phase
	// rec is the screen's own copy while the stream runs (sharing the
	// probe's frames so far), then the final record the sink was handed.
	rec   *record.Record
	start time.Time // when the screen learned the stream started
	dirty bool      // frames arrived since it was last derived
	row   table.Row // cached row of a finished stream
	rowW  int       // the table width row was made for
	// pt is a finished stream's point on the scatter, computed once. It is
	// nil when the stream has no TTFT or no gaps.
	pt     *views.ScatterPoint
	warmup bool
}

// runScreen is the live view of a workload. It is a plain struct the root
// model routes to while it shows, and in the background while one of the
// run's streams is open in the stream screen.
type runScreen struct {
	m        *Model
	sh       *shell
	cfg      RunConfig
	id       int // tags this run's events
	feed     *feed
	progress *probe.Progress
	agg      *stats.Aggregate // the records so far, as the headless report adds them
	sum      stats.Summary
	sumDirty bool
	ttft     views.Buckets // measured streams' TTFT
	gaps     views.Buckets // measured streams' gaps

	list     []*runStream // kept streams, in the order they started
	live     map[int]*runStream
	finished int // of list
	sel, top int // selected stream and the table's first row, in list
	follow   bool
	byTime   bool
	page     runPage
	opened   *runStream // shown in the stream screen

	state            views.RunState
	startedAt, ended time.Time
	// Set by the run's goroutine before it pushes the end of the run.
	stats       stats.RunStats
	interrupted bool

	table     table.Model
	keys      RunKeyMap
	help      help.Model
	lay       runLayout
	pending   []event
	done      []event // finished records and the run's end, not yet taken in
	dropped   int     // stale events
	redraw    frameTick
	timeline  views.TimelineCache // the selected stream's
	helpBar   helpMemo
	settled   bool // the tick after the end has been scheduled
	lastHeavy time.Time
	heavy     bool // the slow panels' data changed
	turn      int  // under load, the slow panels drawn next (renderSlow)
	sweep     sweepPanel
}

// runTickMsg is the run screen's redraw tick (one generation counts).
type runTickMsg struct{ gen int }

// NewRun returns the root model on the run screen. Init starts the
// workload. Every record goes to cfg.Sink as it ends (from the runner's
// sink goroutine) and then to the screen. Enter opens any stream of the
// run in the stream screen, and esc comes back.
func NewRun(ctx context.Context, rc RunConfig, cfg Config) *Model {
	if cfg.StallMS <= 0 {
		cfg.StallMS = rc.Plan.Options.StallMS
	}
	m := New(ctx, cfg)
	rs := &runScreen{
		m: m, sh: &m.sh, cfg: rc, id: 1, feed: newFeed(), progress: rc.Plan.Progress,
		agg: stats.NewAggregate(m.cfg.StallMS), sumDirty: true,
		live: map[int]*runStream{}, follow: true,
		keys: DefaultRunKeyMap(), help: help.New(),
	}
	if rs.progress == nil {
		rs.progress = &probe.Progress{}
	}
	rs.table = table.New(table.WithFocused(true))
	rs.lay = newRunLayout(rs)
	if sp := rc.Sweep; sp != nil {
		rs.sweep.res = sweep.Result{Kind: sp.Kind, Planned: sp.Levels}
	}
	m.rs = rs
	m.active = rs
	m.stream.keys.Back.SetEnabled(true)
	rs.restyle()
	rs.sum = rs.agg.Summary(rc.Workload)
	return m
}

// start runs the plan in its own goroutine. The probe talks to the
// screen only through the feed, which never blocks it. Events and records
// are buffered without loss, and the next frame tick picks them up.
func (rs *runScreen) start() tea.Cmd {
	m := rs.m
	plan := rs.cfg.Plan
	plan.Progress = rs.progress
	observe, sink := rs.observer(rs.sh.now), rs.sink(m.cfg.Sink, rs.sh.now)
	ctx := m.ctx
	rs.startedAt = rs.sh.now()
	m.streams.Add(1)
	go func() {
		defer m.streams.Done()
		if rs.cfg.Sweep != nil {
			rs.runSweep(sink, observe)
			return
		}
		st := probe.Run(ctx, plan, sink, observe)
		rs.end(st, ctx.Err() != nil, rs.sh.now)
	}()
	return rs.armTick()
}

// observer is the runner's observer. It copies every stream's events but
// the last into the feed.
func (rs *runScreen) observer(now func() time.Time) func(probe.Event) {
	base := rs.feed.observer(rs.id, now)
	also := rs.cfg.Observe
	return func(ev probe.Event) {
		if also != nil {
			also(ev)
		}
		if ev.Type == probe.EventDone {
			return // the record comes once, from the sink, with its run offset
		}
		base(ev)
	}
}

// sink is the runner's sink. Each record goes to next (--out, the
// headless aggregate), then, the same pointer, to the screen.
func (rs *runScreen) sink(next func(*record.Record), now func() time.Time) func(*record.Record) {
	return func(r *record.Record) {
		if next != nil {
			next(r)
		}
		rs.feed.push(event{run: rs.id, at: now(), Event: probe.Event{Seq: r.Seq, Type: probe.EventDone, Record: r}})
	}
}

// end tells the screen the run is over, once every record is handed over.
func (rs *runScreen) end(st stats.RunStats, interrupted bool, now func() time.Time) {
	rs.stats, rs.interrupted = st, interrupted // read after the feed hands over the end
	rs.feed.push(event{run: rs.id, at: now(), Event: probe.Event{Seq: -1, Type: probe.EventDone}})
}

// RunResult is what the runner returned and whether the run was stopped
// before it ended. Call it after Wait.
func (m *Model) RunResult() (stats.RunStats, bool) {
	return m.rs.stats, m.rs.interrupted
}

// RunFinished reports that the screen has taken in the end of the run.
func (m *Model) RunFinished() bool { return m.rs.state != views.RunRunning }

// RunSummary is the run screen's summary of the records it has taken in.
func (m *Model) RunSummary() stats.Summary {
	return m.rs.agg.Summary(m.rs.cfg.Workload)
}

// armTick schedules the next frame of the run screen, no sooner than
// frameInterval after the last one (busyInterval under load).
func (rs *runScreen) armTick() tea.Cmd {
	every := frameInterval
	if len(rs.live) > busyStreams {
		every = busyInterval
	}
	d, gen, ok := rs.redraw.arm(rs.sh.now(), every)
	if !ok {
		return nil
	}
	return rs.m.after(d, runTickMsg{gen: gen})
}

// tick is the run's redraw tick, on any screen. The run goes on while
// one of its streams is open in the stream screen.
func (rs *runScreen) tick(t runTickMsg) tea.Cmd {
	if !rs.redraw.fired(t.gen) {
		return nil
	}
	rs.redraw.lastDraw = rs.sh.now()
	rs.apply()
	if rs.m.active == screen(rs) {
		rs.render(false)
	} else {
		rs.syncOpened()
	}
	// The tick runs while the run does (its clock moves), and once more
	// after the tick that drew the final figures, so whoever waits for
	// the end sees a message after it.
	if rs.state == views.RunRunning || !rs.settled {
		rs.settled = rs.state != views.RunRunning
		return rs.armTick()
	}
	return nil
}

// update handles a message while the run screen shows.
func (rs *runScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg, tea.BackgroundColorMsg:
		rs.render(true)
	case tea.KeyPressMsg:
		return rs.handleKey(msg)
	}
	return nil
}

// applyRun takes the feed's events into the screen. Events of another run,
// or of a stream the screen does not hold, are stale and dropped.
func (rs *runScreen) apply() {
	rs.pending = rs.feed.drain(rs.pending)
	for i := range rs.pending {
		e := &rs.pending[i]
		if e.run != rs.id {
			rs.dropped++
			continue
		}
		if e.Type == probe.EventDone {
			rs.done = append(rs.done, *e) // taken in by takeDone, in order
			continue
		}
		s := rs.live[e.Seq]
		switch {
		case e.Type == probe.EventStart:
			e.Record.StallMS = rs.m.cfg.StallMS // the feed's copy is ours
			s = &runStream{phase: views.PhaseConnecting, rec: e.Record, start: e.at}
			rs.live[e.Seq] = s
			rs.list = append(rs.list, s)
		case s == nil:
			rs.dropped++ // a stream the screen never saw start, or one already recorded
		case e.Type == probe.EventHeaders:
			s.rec.HeadersMS, s.rec.HTTPStatus = e.Record.HeadersMS, e.Record.HTTPStatus
			s.phase = max(s.phase, views.PhaseWaiting)
		case e.Type == probe.EventFrames:
			s.rec.Frames = e.all
			if s.rec.FirstByteMS == nil { // an opened stream's clocks show it
				s.rec.FirstByteMS = e.firstByte
			}
			s.phase = max(s.phase, views.PhaseWaiting)
			for j := range e.Frames {
				if e.Frames[j].IsContent() {
					s.phase = views.PhaseStreaming
					break
				}
			}
			s.dirty = true
		}
		rs.heavy = true
	}
	clear(rs.pending)
	rs.takeDone()
	rs.trim()
	if rs.follow && len(rs.list) > 0 {
		rs.sel = len(rs.list) - 1
	}
}

// takeDone takes in the finished records (and the end of the run) held
// since earlier ticks or drained now. While streams are in flight it takes
// at most doneBudget a tick, plus any that waited doneMaxWait. Many
// streams can end together (bench/load -tui ends 1,000 within about
// 200 ms). The rest then wait until the streams still reading have ended,
// so the screen's per-record work (the aggregate, histograms, rows) does
// not take CPU from their last reads. A steady stream of records is shown
// at most doneMaxWait late. Once none is in flight, all are taken at once.
func (rs *runScreen) takeDone() {
	n := len(rs.done)
	if rs.progress.InFlight.Load() > 0 && n > doneBudget {
		n = doneBudget
		now := rs.sh.now()
		for n < len(rs.done) && now.Sub(rs.done[n].at) >= doneMaxWait {
			n++
		}
	}
	for i := range rs.done[:n] {
		e := &rs.done[i]
		if e.Seq >= 0 {
			rs.finishStream(rs.live[e.Seq], e.Record, e.at)
			continue
		}
		rs.state = views.RunDone
		if rs.interrupted {
			rs.state = views.RunStopped
		}
		rs.ended = e.at
		rs.keys.Quit.SetHelp("q", "quit") // nothing left to stop
		rs.agg.SetRun(rs.stats)
		rs.sumDirty = true
	}
	if n > 0 {
		rs.heavy = true
	}
	rest := copy(rs.done, rs.done[n:])
	clear(rs.done[rest:])
	rs.done = rs.done[:rest]
}

// finishStream takes a stream's final record into the aggregate (exactly
// as the headless report adds it), the histograms and the stream's row.
func (rs *runScreen) finishStream(s *runStream, rec *record.Record, at time.Time) {
	if s == nil {
		// It failed before it was sent, so it had no start event.
		s = &runStream{start: at}
		rs.list = append(rs.list, s)
	} else {
		delete(rs.live, rec.Seq)
	}
	s.rec, s.phase, s.row = rec, views.PhaseDone, nil
	s.warmup = rec.Phase == record.PhaseWarmup
	if p, ok := views.PointOf(-1, rec); ok {
		s.pt = &p
	}
	rs.finished++
	rs.agg.Add(rec)
	rs.sumDirty = true
	if rec.Phase != record.PhaseWarmup {
		if rec.TTFTMS != nil {
			rs.ttft.Add(*rec.TTFTMS)
		}
		for _, g := range rec.Gaps() {
			rs.gaps.Add(g)
		}
	}
}

// trim forgets the oldest finished streams beyond keepFinished (a quarter
// more first, so it runs once per many streams), keeping every one in
// flight.
func (rs *runScreen) trim() {
	if rs.finished <= keepFinished+keepFinished/4 {
		return
	}
	drop := rs.finished - keepFinished
	kept := rs.list[:0]
	removedBeforeSel, removedBeforeTop := 0, 0
	for i, s := range rs.list {
		if drop > 0 && s.phase == views.PhaseDone && s != rs.opened {
			drop--
			rs.finished--
			if i < rs.sel {
				removedBeforeSel++
			}
			if i < rs.top {
				removedBeforeTop++
			}
			continue
		}
		kept = append(kept, s)
	}
	clear(rs.list[len(kept):])
	rs.list = kept
	rs.sel = max(0, rs.sel-removedBeforeSel)
	rs.top = max(0, rs.top-removedBeforeTop)
}

// deriveLive brings a running stream's figures up to date with its frames
// so far (the screen's own copy), with the probe's Derive, as the stream
// screen does.
func (rs *runScreen) deriveLive(s *runStream) {
	if s.phase == views.PhaseDone {
		return
	}
	r := s.rec
	el := msSince(s.start, rs.sh.now())
	r.DurationMS = el
	if n := len(r.Frames); n > 0 {
		r.DurationMS = max(el, r.Frames[n-1].TMS)
	}
	if s.dirty || r.TTFTMS == nil {
		_ = stats.Derive(r, rs.m.cfg.StallMS) // the live copy is ours, and its times are in order
		s.dirty = false
	}
}

// openSelected shows the selected stream in the stream screen, among the
// run's other finished streams (the dimmer timeline rows and the heatmap),
// live if it is still running.
func (rs *runScreen) openSelected() {
	if rs.sel >= len(rs.list) {
		return
	}
	s := rs.list[rs.sel]
	const nearby = 24
	var hist []*record.Record
	for i := len(rs.list) - 1; i >= 0 && len(hist) < nearby; i-- {
		if o := rs.list[i]; o != s && o.phase == views.PhaseDone {
			hist = append(hist, o.rec)
		}
	}
	for i, j := 0, len(hist)-1; i < j; i, j = i+1, j-1 {
		hist[i], hist[j] = hist[j], hist[i]
	}
	if s.phase == views.PhaseDone {
		hist = append(hist, s.rec)
	}
	rs.opened = s
	rs.m.stream.open(s.rec, s.phase, s.start, hist, "a stream of the run · esc: back to the run")
}

// syncOpened keeps the stream screen up with the open stream while it
// runs, and shows its final record once it ends.
func (rs *runScreen) syncOpened() {
	s, ss := rs.opened, rs.m.stream
	if s == nil || (ss.cur.Phase == views.PhaseDone && ss.cur.Record == s.rec) {
		return
	}
	if s.phase == views.PhaseDone && ss.cur.Record != s.rec {
		ss.history = append(ss.history, s.rec)
	}
	ss.cur.Record, ss.cur.Phase = s.rec, s.phase
	if s.phase != views.PhaseDone {
		ss.cur.ElapsedMS = msSince(ss.startedAt, rs.sh.now())
	}
	ss.dirtyData, ss.dirtyText = true, true
	ss.render(false)
}

// back leaves the stream screen for the run screen, redrawn for the
// terminal's size now.
func (rs *runScreen) back() {
	rs.opened = nil
	rs.m.stream.note = ""
	rs.m.show(rs)
	rs.render(true)
}
