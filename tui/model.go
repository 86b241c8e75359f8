// Package tui is drip's live view: one root Bubble Tea model that turns
// probe events into immutable snapshots and lays out the views' panels.
// The probe runs in its own goroutines and never waits for the UI.
package tui

import (
	"context"
	"sync"
	"time"

	"charm.land/bubbles/v2/help"
	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// frameInterval caps redraws at 30 per second however fast frames arrive.
const frameInterval = time.Second / 30

// Beyond bigRecord frames, a live stream's O(n) panels (the derived
// figures, text, clocks, gaps, heatmap) are redrawn at most every
// slowInterval instead of every frame: at thousands of frames a second
// nobody reads them faster, and the CPU is better left to the probe.
const (
	bigRecord    = 4096
	slowInterval = 250 * time.Millisecond
)

// zoomMS is the window of the zoomed timeline: the last few seconds.
const zoomMS = 2000

// Source is something the live view can stream: Stream records one stream
// (seq counts the source's runs from 0), calling observe as it unfolds.
type Source struct {
	Name   string // shown in the header, e.g. the demo scenario
	Stream func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record
}

// Config is what the live view shows and does.
type Config struct {
	Sources []Source         // what r re-runs; n cycles between several
	Records []*record.Record // saved records shown at once (drip view)
	// Sink receives every finished record on the probe's goroutine, also
	// those that end after the view has quit (e.g. --out).
	Sink    func(*record.Record)
	StallMS float64
	Color   bool             // false: NO_COLOR
	SaveDir string           // where s writes records; "" is the working directory
	Clock   func() time.Time // nil: time.Now
}

// screen is what the root model shows: the stream screen, or the compare
// screen (which opens streams in the stream screen); the run view will be
// a further screen of the same model.
type screen uint8

const (
	screenStream  screen = iota
	screenCompare        // recorded runs side by side (compare.go)
	screenRun            // a workload as it runs (run.go)
	screenTargets        // several targets raced with one prompt (targets.go)
)

// focus is the panel that scroll keys move.
type focus uint8

const (
	focusText focus = iota
	focusHeatmap
	focusCount
)

// Model is the root model of the live view.
type Model struct {
	cfg     Config
	ctx     context.Context // ends every stream
	cancel  context.CancelFunc
	streams *sync.WaitGroup
	feed    *feed
	now     func() time.Time
	// after schedules a message; tests and benchmarks run it on their clock.
	after func(time.Duration, tea.Msg) tea.Cmd

	screen screen
	cmp    *compareScreen // nil unless the model was opened on a comparison
	rs     *runScreen     // nil unless the model was opened on a run
	ts     *targetsScreen // nil unless the model was opened on several targets
	keys   KeyMap
	help   help.Model
	styles Styles
	dark   bool

	// The current stream and the finished runs before it.
	src       int
	run       int // ID of the current stream; events of other runs are stale
	seq       int // runs started from the current source
	cancelRun context.CancelFunc
	cur       views.Stream
	startedAt time.Time
	history   []*record.Record
	this, all *stats.Summary
	pending   []event

	// What changed since the panels were last drawn.
	dirtyData, dirtyText bool

	// Drawing.
	width, height int
	lay           layout
	layEarlier    int // earlier runs when the layout was made: the timeline grows with them
	frozen, zoom  bool
	heatByTime    bool
	heatSkip      int
	focus         focus
	follow        bool
	note          string
	text          textView
	panels        panels
	composed      string // the screen View returns
	viewDirty     bool   // composed is out of date
	tickGen       int
	tickArmed     bool
	lastDraw      time.Time
	lastHeavy     time.Time // when the O(n) panels were last redrawn
	redraws       int
	dropped       int // stale events dropped
	quitting      bool
	beginPending  bool // Init ran before the first window size
}

// panels are the rendered strings View joins; each is rebuilt only when
// its inputs change.
type panels struct {
	header, timeline, clocks, gaps, heatmap, helpBar string
}

// New returns the live view for cfg. Streams end when ctx does.
func New(ctx context.Context, cfg Config) *Model {
	if cfg.StallMS <= 0 {
		cfg.StallMS = stats.DefaultStall
	}
	now := cfg.Clock
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &Model{
		cfg: cfg, ctx: ctx, cancel: cancel, streams: &sync.WaitGroup{}, feed: newFeed(), now: now,
		after: func(d time.Duration, msg tea.Msg) tea.Cmd {
			return tea.Tick(d, func(time.Time) tea.Msg { return msg })
		},
		keys: DefaultKeyMap(), help: help.New(), dark: true, follow: true,
	}
	m.keys.Next.SetEnabled(len(cfg.Sources) > 1)
	m.keys.Rerun.SetEnabled(len(cfg.Sources) > 0)
	m.setStyles(true)
	m.cur = views.Stream{Record: &record.Record{StallMS: cfg.StallMS}}
	if n := len(cfg.Records); n > 0 {
		m.history = append(m.history, cfg.Records...)
		m.cur = views.Stream{Run: cfg.Records[n-1].Seq + 1, Phase: views.PhaseDone, Record: cfg.Records[n-1]}
	}
	m.summarise()
	return m
}

// beginDelay is how long after the terminal's size is known the first
// stream starts: Bubble Tea sets the terminal up, draws the first frame
// and flushes it on its next frame tick, all while Init's commands run;
// a stream started with them read TTFT 6 ms high on an idle machine and
// headers 4–99 ms high on a loaded one. Two frame ticks later that work is
// done and the first stream reads what a headless one does.
const beginDelay = 2 * frameInterval

// beginMsg starts what the view measures.
type beginMsg struct{}

// Init asks for the background colour and starts listening to the feed.
// The first stream (or round, or workload) starts beginDelay after the
// first window size, once the first frame is drawn; a model that already
// knows its size (tests) starts it at once.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.feed.wait(m.ctx)}
	if m.width > 0 {
		cmds = append(cmds, m.begin())
	} else {
		m.beginPending = true
	}
	if m.cmp != nil && m.cmp.live != nil {
		cmds = append(cmds, m.after(liveCompareInterval, liveCompareTickMsg{}))
	}
	return tea.Batch(cmds...)
}

// begin starts what the view measures: the first round of several
// targets, the first stream of the current source, or the workload.
func (m *Model) begin() tea.Cmd {
	if m.ts != nil {
		return m.startRound()
	}
	var cmds []tea.Cmd
	if len(m.cfg.Sources) > 0 && len(m.cfg.Records) == 0 {
		cmds = append(cmds, m.startRun())
	}
	if m.rs != nil {
		cmds = append(cmds, m.startWorkload())
	}
	return tea.Batch(cmds...)
}

// startRun cancels the current stream, if any, and starts the next run of
// the current source in its own goroutine.
func (m *Model) startRun() tea.Cmd {
	if m.cancelRun != nil {
		m.cancelRun()
	}
	src := m.cfg.Sources[m.src]
	m.run++
	seq := m.seq
	m.seq++
	ctx, cancel := context.WithCancel(m.ctx)
	m.cancelRun = cancel
	m.cur = views.Stream{Run: seq + 1, Phase: views.PhaseIdle, Record: &record.Record{Seq: seq, StallMS: m.cfg.StallMS}}
	m.startedAt = m.now()
	m.dirtyData, m.dirtyText, m.follow = true, true, true
	m.summarise()
	observe := m.feed.observer(m.run, m.now)
	sink := m.cfg.Sink
	m.streams.Add(1)
	go func() {
		defer m.streams.Done()
		rec := src.Stream(ctx, seq, observe)
		if sink != nil {
			sink(rec)
		}
	}()
	return m.armTick()
}

// live reports a stream still running.
func (m *Model) live() bool { return m.cur.Phase != views.PhaseDone && len(m.cfg.Sources) > 0 }

// apply takes the feed's events into the model; events of other runs than
// the current one are stale and dropped.
func (m *Model) apply() {
	m.pending = m.feed.drain(m.pending)
	for i := range m.pending {
		e := &m.pending[i]
		if e.run != m.run {
			m.dropped++
			continue
		}
		text, done := take(&m.cur, &m.startedAt, e, m.cfg.StallMS)
		if done {
			m.history = append(m.history, e.Record)
		}
		m.dirtyText = m.dirtyText || text
		m.dirtyData = true
	}
	clear(m.pending)
}

// take applies one event of a stream to its snapshot: the live record is
// the snapshot's own copy, sharing the probe's frames. It reports whether
// the text changed and whether the event ended the stream (s.Record is then
// the final record).
func take(s *views.Stream, startedAt *time.Time, e *event, stallMS float64) (text, done bool) {
	r := s.Record
	switch e.Type {
	case probe.EventStart:
		cp := *e.Record
		cp.StallMS = stallMS
		s.Record = &cp
		s.Phase = views.PhaseConnecting
		*startedAt = e.at
	case probe.EventHeaders:
		r.HeadersMS, r.HTTPStatus = e.Record.HeadersMS, e.Record.HTTPStatus
		s.Phase = views.PhaseWaiting
	case probe.EventFrames:
		r.Frames = e.all
		if r.FirstByteMS == nil {
			r.FirstByteMS = e.firstByte
		}
		for j := range e.Frames {
			if e.Frames[j].IsContent() {
				s.Phase = views.PhaseStreaming
			}
		}
		if s.Phase < views.PhaseWaiting {
			s.Phase = views.PhaseWaiting
		}
		return true, false
	case probe.EventDone:
		s.Record = e.Record
		s.Phase = views.PhaseDone
		return true, true
	}
	return false, false
}

// summarise derives the current stream's figures with the probe's own
// functions: Derive for a stream still running, Aggregate for both columns
// of the clocks panel, exactly as the headless report does.
func (m *Model) summarise() {
	r := m.cur.Record
	if m.cur.Phase != views.PhaseDone {
		m.cur.ElapsedMS = msSince(m.startedAt, m.now())
		r.DurationMS = m.cur.ElapsedMS
		if n := len(r.Frames); n > 0 {
			r.DurationMS = max(r.DurationMS, r.Frames[n-1].TMS)
		}
		// The live record is the model's own copy; deriving it cannot fail
		// on times the probe stamped in order.
		_ = stats.Derive(r, m.cfg.StallMS)
	}
	a := stats.NewAggregate(m.cfg.StallMS)
	a.Add(r)
	this := a.Summary(stats.Workload{})
	m.this = &this
	m.all = nil
	if len(m.history) >= 2 {
		a := stats.NewAggregate(m.cfg.StallMS)
		for _, h := range m.history {
			a.Add(h)
		}
		all := a.Summary(stats.Workload{})
		m.all = &all
	}
}

// earlier is the finished runs before the current one, oldest first.
func (m *Model) earlier() []*record.Record {
	h := m.history
	if n := len(h); n > 0 && h[n-1] == m.cur.Record {
		h = h[:n-1]
	}
	return h
}

func msSince(a, b time.Time) float64 {
	if a.IsZero() {
		return 0
	}
	return float64(b.Sub(a)) / float64(time.Millisecond)
}

// Records returns every finished record the view holds, oldest first.
func (m *Model) Records() []*record.Record { return m.history }

// Redraws is how many times the panels were redrawn.
func (m *Model) Redraws() int { return m.redraws }

// Wait ends every stream and waits for their goroutines, so that every
// record has reached the sink.
func (m *Model) Wait() {
	m.cancel()
	m.streams.Wait()
}
