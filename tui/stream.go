package tui

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// focus is the panel that scroll keys move.
type focus uint8

const (
	focusText focus = iota
	focusHeatmap
	focusCount
)

// streamScreen is the live view of one stream among the runs before it.
// It shows drip watch and drip demo, and any stream the run or compare
// screen opens (esc goes back to that screen).
type streamScreen struct {
	m    *Model // the plumbing (feed, goroutines, the sources, the other screens)
	sh   *shell
	keys KeyMap
	help help.Model

	// The current stream and the finished runs before it.
	src       int
	pick      int // in drip view, the index in cfg.Records of the stream shown
	tag       int // feed tag of the current stream. Events of other tags are stale.
	seq       int // runs started from the current source
	cancelRun context.CancelFunc
	cut       map[int]bool // tags of runs a re-run cut short, whose records still join the history
	cur       views.Stream
	startedAt time.Time
	history   []*record.Record
	this, all *stats.Summary
	allSum    *stats.Summary // all, kept for the runs of allKey
	allKey    allKey
	pending   []event
	stallMS   float64

	// What changed since the panels were last drawn.
	dirtyData, dirtyText bool
	clocksStalling       bool // the clocks were drawn with a stall in progress

	// Drawing.
	lay          streamLayout
	layEarlier   int // earlier runs when the layout was made, as the timeline grows with them
	layClocks    int // the clocks panel's rows then, as a stream can add one (ttfo, held)
	layBeside    int // the rows the bottom row needed then beside a relay (besideNeed)
	frozen, zoom bool
	heatByTime   bool
	heatSkip     int
	focus        focus
	follow       bool
	note         string
	text         textView
	redraw       frameTick
	lastHeavy    time.Time // when the O(n) panels were last redrawn
	dropped      int       // stale events dropped
	relay        relayAsk  // drip watch --relay
	// The timeline's cache, and its legend for legendW cells. A redraw
	// draws only the frames that came since.
	timeline views.TimelineCache
	legend   string
	legendW  int
	helpBar  helpMemo
	textKey  textKey // what the text panel was last drawn for
}

func newStreamScreen(m *Model) *streamScreen {
	s := &streamScreen{m: m, sh: &m.sh, keys: DefaultKeyMap(), help: help.New(), follow: true, stallMS: m.cfg.StallMS, cut: map[int]bool{}}
	cfg := &m.cfg
	s.keys.Next.SetEnabled(len(cfg.Sources) > 1)
	s.keys.Rerun.SetEnabled(len(cfg.Sources) > 0)
	s.keys.Freeze.SetEnabled(len(cfg.Sources) > 0) // saved records never move
	s.keys.PrevStream.SetEnabled(len(cfg.Records) > 1)
	s.keys.NextStream.SetEnabled(len(cfg.Records) > 1)
	s.restyle()
	s.cur = views.Stream{Record: &record.Record{StallMS: s.stallMS}}
	if n := len(cfg.Records); n > 0 {
		s.history = append(s.history, cfg.Records...)
		s.pick = n - 1
		s.cur = views.Stream{Run: cfg.Records[n-1].Seq + 1, Phase: views.PhaseDone, Record: cfg.Records[n-1], Hops: s.hopsOf(cfg.Records[n-1])}
	}
	s.lay = newStreamLayout(s)
	s.summarise()
	return s
}

func (s *streamScreen) restyle() {
	s.help.Styles = s.sh.styles.Help
	s.timeline.Reset()
	s.legend, s.legendW = "", 0
	s.helpBar.reset()
	s.text.gen++
}

// startRun cancels the current stream, if any, and starts the next run of
// the current source in its own goroutine.
func (s *streamScreen) startRun() tea.Cmd {
	if s.cancelRun != nil {
		s.cancelRun()
	}
	m := s.m
	src := m.cfg.Sources[s.src]
	s.tag = m.tag()
	seq := s.seq
	s.seq++
	ctx, cancel := context.WithCancel(m.ctx)
	s.cancelRun = cancel
	s.cur = views.Stream{Run: seq + 1, Phase: views.PhaseIdle, Record: &record.Record{Seq: seq, StallMS: s.stallMS}}
	s.startedAt = s.sh.now()
	s.dirtyData, s.dirtyText, s.follow = true, true, true
	s.summarise()
	observe := m.feed.observer(s.tag, s.sh.now)
	sink := m.cfg.Sink
	m.streams.Add(1)
	go func() {
		defer m.streams.Done()
		rec := src.Stream(ctx, seq, observe)
		if sink != nil {
			sink(rec)
		}
	}()
	return s.armTick()
}

// live reports a stream still running.
func (s *streamScreen) live() bool {
	return s.cur.Phase != views.PhaseDone && len(s.m.cfg.Sources) > 0
}

// apply takes the feed's events into the screen. Events of other runs
// than the current one are stale and dropped.
func (s *streamScreen) apply() {
	s.pending = s.m.feed.drain(s.pending)
	for i := range s.pending {
		e := &s.pending[i]
		if e.run != s.tag {
			// A run r cut short ends canceled. It is still one of the
			// runs (the summary on quit counts it), so it joins the history.
			if e.Type == probe.EventDone && s.cut[e.run] {
				delete(s.cut, e.run)
				s.history = append(s.history, e.Record)
				s.dirtyData = true
				continue
			}
			s.dropped++
			continue
		}
		text, done := take(&s.cur, &s.startedAt, e, s.stallMS)
		if done {
			s.history = append(s.history, e.Record)
		}
		s.dirtyText = s.dirtyText || text
		s.dirtyData = true
	}
	clear(s.pending)
}

// take applies one event of a stream to its snapshot. The live record is
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
// functions, exactly as the headless report does. It uses Derive for a
// stream still running and Aggregate for both columns of the clocks panel.
func (s *streamScreen) summarise() {
	r := s.cur.Record
	if s.cur.Phase != views.PhaseDone {
		s.cur.ElapsedMS = msSince(s.startedAt, s.sh.now())
		r.DurationMS = s.cur.ElapsedMS
		if n := len(r.Frames); n > 0 {
			r.DurationMS = max(r.DurationMS, r.Frames[n-1].TMS)
		}
		// The live record is the screen's own copy. Deriving it cannot
		// fail on times the probe stamped in order.
		_ = stats.Derive(r, s.stallMS)
	}
	a := stats.NewAggregate(s.stallMS)
	if r.Phase == record.PhaseWarmup {
		// "This run" is this stream's own figures even when it was a
		// warmup stream, which the aggregate leaves out. Its row says w.
		measured := *r
		measured.Phase = record.PhaseMeasure
		r = &measured
	}
	a.Add(r)
	this := a.Summary(stats.Workload{})
	s.this = &this
	s.all = s.allRuns()
}

// allRuns sums the finished runs for the clocks' all-runs column. It is
// nil below two runs. The sum is kept until the runs change, because a
// live stream's figures are summarised again many times before the next
// run ends.
func (s *streamScreen) allRuns() *stats.Summary {
	n := len(s.history)
	if n < 2 {
		return nil
	}
	k := allKey{n, s.history[0], s.history[n-1]}
	if s.allSum == nil || k != s.allKey {
		a := stats.NewAggregate(s.stallMS)
		for _, h := range s.history {
			a.Add(h)
		}
		all := a.Summary(stats.Workload{})
		s.allSum, s.allKey = &all, k
	}
	return s.allSum
}

// allKey is the finished runs an all-runs sum was made of.
type allKey struct {
	n           int
	first, last *record.Record
}

// earlier is the finished runs other than the current one, oldest first.
// They are those before it, and in drip view those after the stream picked.
func (s *streamScreen) earlier() []*record.Record {
	h := s.history
	if n := len(h); n > 0 && h[n-1] == s.cur.Record {
		return h[:n-1]
	}
	if i := slices.Index(h, s.cur.Record); i >= 0 {
		return slices.Delete(slices.Clone(h), i, i+1)
	}
	return h
}

// pickStream shows another stream of drip view's file, by steps of d
// (wrapping around), the rest of the file staying the dimmer rows and the
// all-runs column.
func (s *streamScreen) pickStream(d int) {
	recs := s.m.cfg.Records
	s.pick = (s.pick + d + len(recs)) % len(recs)
	r := recs[s.pick]
	s.cur = views.Stream{Run: r.Seq + 1, Phase: views.PhaseDone, Record: r, Hops: s.hopsOf(r)}
	s.heatSkip, s.follow = 0, true
	s.dirtyData, s.dirtyText = true, true
	s.text.wrapped = views.WrappedText{}
	s.text.gen++
	s.relayout()
	s.render(true)
}

// freeze stops drawing the panels (or starts again) and says in the help
// what space does now. Otherwise the footer would offer "freeze drawing"
// while frozen.
func (s *streamScreen) freeze(on bool) {
	s.frozen = on
	help := "freeze drawing"
	if on {
		help = "resume drawing"
	}
	s.keys.Freeze.SetHelp("space", help)
}

// open shows rec in the screen, finished or still running, among hist.
// The runs of hist are the dimmer timeline rows and the heatmap, with rec
// last when finished.
func (s *streamScreen) open(rec *record.Record, phase views.Phase, start time.Time, hist []*record.Record, note string) {
	s.history, s.allSum = hist, nil
	s.cur = views.Stream{Run: rec.Seq + 1, Phase: phase, Record: rec, Hops: s.hopsOf(rec)}
	s.keys.Freeze.SetEnabled(len(s.m.cfg.Sources) > 0 || phase != views.PhaseDone)
	s.startedAt = start
	s.note = note
	s.heatSkip, s.follow, s.zoom = 0, true, false
	s.freeze(false)
	s.dirtyData, s.dirtyText = true, true
	s.summarise()
	s.relayout()
	s.render(true)
	s.m.show(s)
}

// update handles a message while the stream screen shows. Probe events
// are not drawn as they come. They wait in the feed until the next frame
// tick, at most 30 a second.
func (s *streamScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		s.relayout()
		s.render(true)
	case tea.BackgroundColorMsg:
		s.render(true)
	case feedMsg:
		return tea.Batch(s.m.feed.wait(s.m.ctx), s.armTick())
	case frameMsg:
		if !s.redraw.fired(msg.gen) {
			return nil
		}
		s.apply()
		if s.live() {
			s.cur.ElapsedMS = msSince(s.startedAt, s.sh.now()) // the header's counting clock
		}
		s.render(false)
		if s.live() {
			return tea.Batch(s.armTick(), s.fetchRelay())
		}
		return s.fetchRelay()
	case relayMsg:
		return s.takeRelay(msg)
	case relayAgainMsg:
		return s.fetchRelay()
	case savedMsg:
		if msg.err != nil {
			s.note = "save failed: " + msg.err.Error()
		} else {
			s.note = fmt.Sprintf("saved %s to %s", stats.Count(msg.n, "record"), msg.path)
		}
		s.renderHeader()
	case tea.KeyPressMsg:
		return s.handleKey(msg)
	}
	return nil
}

// armTick schedules the next frame unless one is pending, no sooner than
// frameInterval after the last one.
func (s *streamScreen) armTick() tea.Cmd {
	d, gen, ok := s.redraw.arm(s.sh.now(), frameInterval)
	if !ok {
		return nil
	}
	return s.m.after(d, frameMsg{gen: gen})
}

func (s *streamScreen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &s.keys
	switch {
	case key.Matches(msg, k.Quit):
		return s.m.quit(msg)
	case key.Matches(msg, k.Back) && s.m.rs != nil:
		s.m.rs.back()
	case key.Matches(msg, k.Back):
		s.m.cmp.back()
	case key.Matches(msg, k.Rerun):
		if s.live() {
			s.cut[s.tag] = true
		}
		return s.startRun()
	case key.Matches(msg, k.Next):
		s.src = (s.src + 1) % len(s.m.cfg.Sources)
		s.history, s.seq, s.note = nil, 0, ""
		clear(s.cut) // a run of the last scenario is not one of this one's
		return s.startRun()
	case key.Matches(msg, k.PrevStream):
		s.pickStream(-1)
	case key.Matches(msg, k.NextStream):
		s.pickStream(1)
	case key.Matches(msg, k.Freeze):
		s.freeze(!s.frozen)
		s.render(!s.frozen)
	case key.Matches(msg, k.Focus):
		s.focus = (s.focus + 1) % focusCount
		s.lay.heat.redraw() // its title shows the focus
	case key.Matches(msg, k.Zoom):
		s.zoom = !s.zoom
		s.lay.timeline.redraw()
	case key.Matches(msg, k.HeatMode):
		s.heatByTime = !s.heatByTime
		s.lay.heat.redraw()
	case key.Matches(msg, k.Save):
		return s.save()
	case key.Matches(msg, k.Help):
		s.help.ShowAll = !s.help.ShowAll
		s.relayout()
		s.render(true)
	case key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Bottom):
		s.scroll(msg)
	}
	return nil
}

// scroll moves the focused panel, either the text or the heatmap's runs.
// The text then stops following the tail until it is scrolled back to the
// bottom.
func (s *streamScreen) scroll(msg tea.KeyPressMsg) {
	k := &s.keys
	if s.focus == focusHeatmap {
		page := max(1, s.lay.heat.b.h-2)
		switch {
		case key.Matches(msg, k.Up):
			s.heatSkip++
		case key.Matches(msg, k.Down):
			s.heatSkip--
		case key.Matches(msg, k.PageUp):
			s.heatSkip += page
		case key.Matches(msg, k.PageDown):
			s.heatSkip -= page
		case key.Matches(msg, k.Bottom):
			s.heatSkip = 0
		}
		s.heatSkip = max(0, min(s.heatSkip, len(s.history)-1))
		s.lay.heat.redraw()
		return
	}
	page := max(1, s.text.height)
	switch {
	case key.Matches(msg, k.Up):
		s.text.scroll(-1)
	case key.Matches(msg, k.Down):
		s.text.scroll(1)
	case key.Matches(msg, k.PageUp):
		s.text.scroll(-page)
	case key.Matches(msg, k.PageDown):
		s.text.scroll(page)
	case key.Matches(msg, k.Bottom):
		s.text.gotoBottom()
	}
	s.follow = s.text.AtBottom()
}

// save writes the finished records to a new file, off the update loop.
func (s *streamScreen) save() tea.Cmd {
	recs := append([]*record.Record(nil), s.history...)
	if len(recs) == 0 { // s during the first stream wrote an empty file, "saved 0 records"
		s.note = "nothing to save yet: a stream is saved once it ends"
		s.renderHeader()
		return nil
	}
	path := filepath.Join(s.m.cfg.SaveDir, "drip-"+s.sh.now().Format("20060102-150405")+".jsonl")
	return func() tea.Msg {
		w, err := record.Create(path)
		if err != nil {
			return savedMsg{err: err}
		}
		for _, r := range recs {
			w.Write(r)
		}
		return savedMsg{path: path, n: len(recs), err: w.Close()}
	}
}
