package tui

import (
	"context"
	"fmt"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// targetsPage is what the watch screen of several targets shows.
type targetsPage uint8

const (
	pageLive    targetsPage = iota // the panes, and the clocks that fit
	pageClocks                     // every figure with its delta
	pageScatter                    // TTFT against gap p99 per run, and the trend by run
	pageCount
)

var pageNames = [pageCount]string{"live", "clocks", "scatter"}

// targetPane is one target, with its current stream and its finished runs.
type targetPane struct {
	src       Source
	tag       int // feed tag of the current stream. Other tags are stale.
	cur       views.Stream
	startedAt time.Time
	runs      []*record.Record
	text      views.WrappedText
	lane      views.TimelineCache
}

// targetsScreen races several targets with the same prompt. It is a
// plain struct, one of the root model's screens.
type targetsScreen struct {
	m          *Model
	sh         *shell
	panes      []*targetPane
	alternate  bool // one target after another instead of all at once
	round      int  // rounds started
	cancel     context.CancelFunc
	cut        map[int]*targetPane // tags of streams a re-run cut short, by pane, whose records still join its runs
	page       targetsPage
	cmp        *compare.Comparison // the finished runs, nil until every target has one
	keys       TargetsKeyMap
	help       help.Model
	redraw     frameTick
	pending    []event
	dropped    int       // stale events
	lastDerive time.Time // when the live streams were last derived
	helpBar    helpMemo
}

// targetsTickMsg is the redraw tick of the targets screen.
type targetsTickMsg struct{ gen int }

// NewTargets returns the root model on the watch screen of several
// targets (cfg.Sources, the first the baseline). Init sends the same
// prompt to every target at once, or one after another when alternate,
// and r does it again. Each finished record goes to cfg.Sink.
func NewTargets(ctx context.Context, cfg Config, alternate bool) *Model {
	m := New(ctx, cfg)
	ts := &targetsScreen{m: m, sh: &m.sh, alternate: alternate, keys: DefaultTargetsKeyMap(), help: help.New(), cut: map[int]*targetPane{}}
	for _, src := range cfg.Sources {
		ts.panes = append(ts.panes, &targetPane{src: src, cur: views.Stream{Record: &record.Record{StallMS: ts.m.cfg.StallMS}}})
	}
	ts.restyle()
	m.ts = ts
	m.active = ts
	return m
}

func (ts *targetsScreen) restyle() {
	ts.help.Styles = ts.sh.styles.Help
	ts.helpBar.reset()
	for _, p := range ts.panes {
		p.lane.Reset()
	}
}

// TargetRuns is every target's finished runs, oldest first, in target order.
func (m *Model) TargetRuns() [][]*record.Record {
	out := make([][]*record.Record, len(m.ts.panes))
	for i, p := range m.ts.panes {
		out[i] = p.runs
	}
	return out
}

// startRound cancels a round still running and sends the prompt to every
// target again.
func (ts *targetsScreen) startRound() tea.Cmd {
	m := ts.m
	if ts.cancel != nil {
		ts.cancel()
		for _, p := range ts.panes {
			if p.cur.Phase != views.PhaseDone {
				ts.cut[p.tag] = p
			}
		}
	}
	ctx, cancel := context.WithCancel(m.ctx)
	ts.cancel = cancel
	seq := ts.round
	ts.round++
	type job struct {
		stream  func(context.Context, int, func(probe.Event)) *record.Record
		observe func(probe.Event)
	}
	jobs := make([]job, len(ts.panes))
	for i, p := range ts.panes {
		p.tag = m.tag()
		p.cur = views.Stream{Run: ts.round, Phase: views.PhaseIdle, Record: &record.Record{Seq: seq, StallMS: ts.m.cfg.StallMS}}
		p.startedAt = time.Time{}
		p.text = views.WrappedText{}
		jobs[i] = job{p.src.Stream, m.feed.observer(p.tag, ts.sh.now)}
	}
	sink := m.cfg.Sink
	run := func(j job) {
		rec := j.stream(ctx, seq, j.observe)
		if sink != nil {
			sink(rec)
		}
	}
	if ts.alternate {
		m.streams.Add(1)
		go func() {
			defer m.streams.Done()
			for _, j := range jobs {
				if ctx.Err() != nil {
					return
				}
				run(j)
			}
		}()
	} else {
		m.streams.Add(len(jobs))
		for _, j := range jobs {
			go func() {
				defer m.streams.Done()
				run(j)
			}()
		}
	}
	ts.render()
	return ts.armTick()
}

func (ts *targetsScreen) armTick() tea.Cmd {
	d, gen, ok := ts.redraw.arm(ts.sh.now(), frameInterval)
	if !ok {
		return nil
	}
	return ts.m.after(d, targetsTickMsg{gen: gen})
}

// liveTargets reports a stream of the round still running.
func (ts *targetsScreen) liveTargets() bool {
	for _, p := range ts.panes {
		if p.cur.Phase != views.PhaseDone {
			return true
		}
	}
	return false
}

// update handles a message on the targets screen.
func (ts *targetsScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg, tea.BackgroundColorMsg:
		ts.render()
	case feedMsg:
		return tea.Batch(ts.m.feed.wait(ts.m.ctx), ts.armTick())
	case targetsTickMsg:
		if !ts.redraw.fired(msg.gen) {
			return nil
		}
		ts.redraw.lastDraw = ts.sh.now()
		ts.apply()
		ts.render()
		if ts.liveTargets() {
			return ts.armTick()
		}
	case tea.KeyPressMsg:
		k := &ts.keys
		switch {
		case key.Matches(msg, k.Quit):
			return ts.m.quit(msg)
		case key.Matches(msg, k.Rerun):
			return ts.startRound()
		case key.Matches(msg, k.Next):
			ts.page = (ts.page + 1) % pageCount
		case key.Matches(msg, k.Prev):
			ts.page = (ts.page + pageCount - 1) % pageCount
		case key.Matches(msg, k.Page):
			ts.page = targetsPage(msg.Text[0] - '1')
		case key.Matches(msg, k.Help):
			ts.help.ShowAll = !ts.help.ShowAll
		}
		ts.render()
	}
	return nil
}

// apply takes the feed's events into the panes, derives the live
// streams, and compares the finished runs again when a stream ended.
func (ts *targetsScreen) apply() {
	ts.pending = ts.m.feed.drain(ts.pending)
	ended := false
	for i := range ts.pending {
		e := &ts.pending[i]
		p := ts.pane(e.run)
		if p == nil {
			// A stream r cut short ends canceled. It is still one of its
			// target's runs (the comparison on quit counts it).
			if c := ts.cut[e.run]; c != nil && e.Type == probe.EventDone {
				delete(ts.cut, e.run)
				c.runs = append(c.runs, e.Record)
				ended = true
				continue
			}
			ts.dropped++
			continue
		}
		if _, done := take(&p.cur, &p.startedAt, e, ts.m.cfg.StallMS); done {
			p.runs = append(p.runs, e.Record)
			ended = true
		}
	}
	clear(ts.pending)
	ts.deriveLive(ended)
	if ended {
		ts.cmp = compareTargets(ts.panes)
	}
}

// deriveLive moves the live panes' clocks and derives their records, at
// most every heavyEvery of their frames unless a stream ended.
func (ts *targetsScreen) deriveLive(ended bool) {
	now := ts.sh.now()
	var live []*targetPane
	frames := 0
	for _, p := range ts.panes {
		if p.cur.Phase == views.PhaseDone || p.cur.Phase == views.PhaseIdle {
			continue
		}
		r := p.cur.Record
		p.cur.ElapsedMS = msSince(p.startedAt, now)
		r.DurationMS = p.cur.ElapsedMS
		if n := len(r.Frames); n > 0 {
			r.DurationMS = max(r.DurationMS, r.Frames[n-1].TMS)
		}
		live = append(live, p)
		frames += len(r.Frames)
	}
	if !ended && now.Sub(ts.lastDerive) < heavyEvery(frames) {
		return
	}
	ts.lastDerive = now
	for _, p := range live {
		// The live record is the pane's own copy. Deriving cannot fail on
		// times the probe stamped in order.
		_ = stats.Derive(p.cur.Record, ts.m.cfg.StallMS)
	}
}

func (ts *targetsScreen) pane(tag int) *targetPane {
	for _, p := range ts.panes {
		if p.tag == tag {
			return p
		}
	}
	return nil
}

// compareTargets compares every target's finished runs against the
// first's, as drip compare does with their record files. It returns nil
// until every target has finished a run.
func compareTargets(panes []*targetPane) *compare.Comparison {
	inputs := make([]compare.Input, len(panes))
	for i, p := range panes {
		if len(p.runs) == 0 {
			return nil
		}
		inputs[i] = compare.Input{Label: p.src.Name, Records: p.runs}
	}
	c, err := compare.New(inputs, compare.Options{})
	if err != nil {
		return nil
	}
	// A target a run ahead of another differs in its counts by that run.
	// Two targets alike would read "stalls 4 vs 2, +100% !".
	for _, p := range panes {
		if len(p.runs) != len(panes[0].runs) {
			compare.WhileMeasuring(c)
			break
		}
	}
	return c
}

// render marks the screen for drawing. The view draws it for the size and page.
func (ts *targetsScreen) render() {
	ts.m.viewDirty = true
}

// view draws the targets screen, with a header, the page and the footer.
// Panels draw themselves to their width. Only the panes' text is cached
// between frames, as it is the part that grows with the stream.
func (ts *targetsScreen) view() string {
	w, h := ts.sh.width, ts.sh.height
	st := &ts.sh.styles.Views
	ts.help.SetWidth(w)
	foot := ts.helpBar.bar(&ts.help, ts.keys, ts.keys.Help, ts.keys.Quit, w)
	footH := lipgloss.Height(foot)
	bodyH := max(0, h-1-footH)
	var body string
	switch ts.page {
	case pageLive:
		body = ts.livePage(w, bodyH)
	case pageClocks:
		body = title(&ts.sh.styles, "clocks", "", w, false) + "\n" + views.TargetClocks(ts.cmp, ts.names(), w, bodyH-1, st)
	case pageScatter:
		body = ts.scatter(w, bodyH)
	}
	parts := []string{ts.header(w), textfmt.Fit(body, w, bodyH), foot}
	return textfmt.Fit(strings.Join(parts, "\n"), w, h)
}

func (ts *targetsScreen) names() []string {
	names := make([]string, len(ts.panes))
	for i, p := range ts.panes {
		names[i] = p.src.Name
	}
	return names
}

// header is the title line with the page tabs.
func (ts *targetsScreen) header(w int) string {
	st := &ts.sh.styles.Views
	how := "at once"
	if ts.alternate {
		how = "one after another"
	}
	line := st.Title.Render("drip watch")
	if w := ts.m.cfg.Warning; w != "" {
		line += st.Dim.Render(" · ") + st.Failed.Render(w)
	}
	line += st.Dim.Render(fmt.Sprintf(" · %d targets %s · round %d ", len(ts.panes), how, ts.round))
	line += tabs(st, pageNames[:], nil, int(ts.page))
	return textfmt.Fit(line, w, 1)
}

// livePage is the live page. It shows a pane per target, one above
// another on one time axis (its lane, then its text with the stalls
// marked). Below them it shows as much of the clocks table as fits, and
// the rest is on page 2.
func (ts *targetsScreen) livePage(w, h int) string {
	st := &ts.sh.styles.Views
	n := len(ts.panes)
	clocksH := 0
	if want := views.TargetClocksRows() + 1; h-want >= n*5+1 {
		clocksH = want
	} else if h-6 >= n*5+1 {
		clocksH = h - (n*5 + 1)
	}
	paneH := max(2, (h-clocksH-1)/n)
	end := 0.0
	for _, p := range ts.panes {
		end = max(end, views.EndMS(&p.cur))
		for _, r := range p.runs {
			end = max(end, r.DurationMS)
		}
	}
	to := views.AxisEnd(end)
	var parts []string
	for i, p := range ts.panes {
		parts = append(parts, ts.paneView(i, p, to, w, paneH))
	}
	parts = append(parts, views.TimeAxis(to, w, st))
	if clocksH > 0 {
		note := "2: every figure"
		parts = append(parts, title(&ts.sh.styles, "clocks", note, w, false), views.TargetClocks(ts.cmp, ts.names(), w, clocksH-1, st))
	}
	return textfmt.Fit(strings.Join(parts, "\n"), w, h)
}

// paneView is one pane. It shows the title, the lane (earlier runs above
// the current one as room allows, then its markers) and the tail of the
// text, stalls marked where they happened.
func (ts *targetsScreen) paneView(i int, p *targetPane, toMS float64, w, h int) string {
	st := &ts.sh.styles.Views
	title := views.TargetTitle(compare.Letter(i), p.src.Name, &p.cur, w, st)
	if h <= 1 {
		return title
	}
	laneH := min(h-1, 2+min(len(earlierRuns(p)), max(0, (h-4)/3)))
	textH := h - 1 - laneH
	lane := p.lane.Lane(&p.cur, earlierRuns(p), toMS, w, laneH, st)
	parts := []string{title, lane}
	if textH > 0 {
		p.text.Update(p.cur.Record, w)
		text := p.text.Tail(textH, st)
		// A finished stream shows the text around its worst stall. That is
		// the place the lane marks, in words.
		if line := p.text.WorstStallLine(); p.cur.Phase == views.PhaseDone && line >= 0 {
			text = p.text.Render(max(0, min(line-textH/2, p.text.Lines()-textH)), textH, st)
		}
		if gap, ok := views.LiveStall(&p.cur); ok {
			text = textfmt.Fit(text, w, textH-1) + "\n" + st.Stall.Render("⏸ "+textfmt.MS(gap)+"… and counting")
		}
		parts = append(parts, text)
	}
	return textfmt.Fit(strings.Join(parts, "\n"), w, h)
}

// earlierRuns are a pane's finished runs before the current stream.
func earlierRuns(p *targetPane) []*record.Record {
	r := p.runs
	if n := len(r); n > 0 && r[n-1] == p.cur.Record {
		r = r[:n-1]
	}
	return r
}

// scatter is the scatter page. It shows a point per finished run of every
// target, and under it the trend of each target's TTFT and gap p99 by run.
func (ts *targetsScreen) scatter(w, h int) string {
	st := &ts.sh.styles.Views
	var pts []views.ScatterPoint
	var trends []views.Trend
	skipped := 0
	for i, p := range ts.panes {
		ttft := views.Trend{Series: i, Label: "ttft"}
		gap := views.Trend{Series: i, Label: "gap p99"}
		for _, r := range p.runs {
			pt, ok := views.PointOf(i, r)
			if !ok {
				skipped++
				ttft.Values = append(ttft.Values, r.TTFTMS)
				gap.Values = append(gap.Values, nil)
				continue
			}
			pts = append(pts, pt)
			ttft.Values = append(ttft.Values, &pt.TTFTMS)
			gap.Values = append(gap.Values, &pt.GapMS)
		}
		trends = append(trends, ttft, gap)
	}
	trendH := min(len(trends), max(0, h/3-1))
	scatterH := h - 1
	if trendH > 0 {
		scatterH = h - trendH - 2
	}
	parts := []string{title(&ts.sh.styles, "scatter", "ttft × gap p99, a point per run", w, false), views.Scatter(pts, true, skipped, ts.m.cfg.StallMS, w, scatterH, st)}
	if trendH > 0 {
		// The note says the rows left out first, as a narrow title keeps its
		// first part.
		note := "by run index, oldest left"
		if trendH < len(trends) {
			note = fmt.Sprintf("%d of %d rows: a taller terminal shows every target · ", trendH, len(trends)) + note
		}
		parts = append(parts, title(&ts.sh.styles, "trend", note, w, false), views.TrendStrip(trends, "runs", w, trendH, st))
	}
	return textfmt.Fit(strings.Join(parts, "\n"), w, h)
}
