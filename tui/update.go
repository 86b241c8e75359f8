package tui

import (
	"fmt"
	"path/filepath"

	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/views"
)

// Update handles one message. Probe events are not drawn as they come:
// they wait in the feed until the next frame tick, at most 30 a second.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg.(type) {
	case beginMsg:
		return m, m.begin()
	case tea.WindowSizeMsg:
		if m.beginPending {
			m.beginPending = false
			_, cmd := m.update(msg)
			return m, tea.Batch(cmd, m.after(beginDelay, beginMsg{}))
		}
	}
	return m.update(msg)
}

func (m *Model) update(msg tea.Msg) (tea.Model, tea.Cmd) {
	if _, ok := msg.(feedMsg); !ok {
		m.viewDirty = true
	}
	if u, ok := msg.(CompareUpdateMsg); ok && m.cmp != nil && m.screen != screenCompare {
		m.cmp.load(u.C) // a stream is open: the figures are fresh on the way back
		return m, nil
	}
	if m.screen == screenCompare {
		return m, m.updateCompare(msg)
	}
	if m.screen == screenTargets {
		return m, m.updateTargets(msg)
	}
	if m.rs != nil {
		// The run goes on while one of its streams is open.
		if cmd, ok := m.updateRun(msg); ok {
			return m, cmd
		}
	}
	switch msg := msg.(type) {
	case tea.WindowSizeMsg:
		m.width, m.height = msg.Width, msg.Height
		m.relayout()
		m.render(true)
	case tea.BackgroundColorMsg:
		m.setStyles(msg.IsDark())
		m.render(true)
	case feedMsg:
		return m, tea.Batch(m.feed.wait(m.ctx), m.armTick())
	case frameMsg:
		if msg.gen != m.tickGen {
			return m, nil
		}
		m.tickArmed = false
		m.apply()
		if m.live() {
			m.cur.ElapsedMS = msSince(m.startedAt, m.now()) // the header's counting clock
		}
		m.render(false)
		if m.live() {
			return m, m.armTick()
		}
	case savedMsg:
		if msg.err != nil {
			m.note = "save failed: " + msg.err.Error()
		} else {
			m.note = fmt.Sprintf("saved %d records to %s", msg.n, msg.path)
		}
		m.renderHeader()
	case tea.KeyPressMsg:
		return m, m.handleKey(msg)
	}
	return m, nil
}

// armTick schedules the next frame unless one is pending, no sooner than
// frameInterval after the last one.
func (m *Model) armTick() tea.Cmd {
	if m.tickArmed {
		return nil
	}
	m.tickArmed = true
	m.tickGen++
	d := max(0, frameInterval-m.now().Sub(m.lastDraw))
	return m.after(d, frameMsg{gen: m.tickGen})
}

func (m *Model) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &m.keys
	switch {
	case key.Matches(msg, k.Quit):
		m.quitting = true
		m.cancel()
		return tea.Quit
	case key.Matches(msg, k.Back) && m.rs != nil:
		m.backToRun()
	case key.Matches(msg, k.Back):
		m.backToCompare()
	case key.Matches(msg, k.Rerun):
		return m.startRun()
	case key.Matches(msg, k.Next):
		m.src = (m.src + 1) % len(m.cfg.Sources)
		m.history, m.seq, m.note = nil, 0, ""
		return m.startRun()
	case key.Matches(msg, k.Freeze):
		m.frozen = !m.frozen
		m.render(!m.frozen)
	case key.Matches(msg, k.Focus):
		m.focus = (m.focus + 1) % focusCount
	case key.Matches(msg, k.Zoom):
		m.zoom = !m.zoom
		m.renderTimeline()
	case key.Matches(msg, k.HeatMode):
		m.heatByTime = !m.heatByTime
		m.renderHeatmap()
	case key.Matches(msg, k.Save):
		return m.save()
	case key.Matches(msg, k.Help):
		m.help.ShowAll = !m.help.ShowAll
		m.relayout()
		m.render(true)
	case key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Bottom):
		m.scroll(msg)
	}
	return nil
}

// scroll moves the focused panel: the text (which then stops following the
// tail until it is scrolled back to the bottom) or the heatmap's runs.
func (m *Model) scroll(msg tea.KeyPressMsg) {
	k := &m.keys
	if m.focus == focusHeatmap {
		page := max(1, m.lay.heat.h-2)
		switch {
		case key.Matches(msg, k.Up):
			m.heatSkip++
		case key.Matches(msg, k.Down):
			m.heatSkip--
		case key.Matches(msg, k.PageUp):
			m.heatSkip += page
		case key.Matches(msg, k.PageDown):
			m.heatSkip -= page
		case key.Matches(msg, k.Bottom):
			m.heatSkip = 0
		}
		m.heatSkip = max(0, min(m.heatSkip, len(m.history)-1))
		m.renderHeatmap()
		return
	}
	page := max(1, m.text.height)
	switch {
	case key.Matches(msg, k.Up):
		m.text.scroll(-1)
	case key.Matches(msg, k.Down):
		m.text.scroll(1)
	case key.Matches(msg, k.PageUp):
		m.text.scroll(-page)
	case key.Matches(msg, k.PageDown):
		m.text.scroll(page)
	case key.Matches(msg, k.Bottom):
		m.text.gotoBottom()
	}
	m.follow = m.text.AtBottom()
}

// save writes the finished records to a new file, off the update loop.
func (m *Model) save() tea.Cmd {
	recs := append([]*record.Record(nil), m.history...)
	path := filepath.Join(m.cfg.SaveDir, "drip-"+m.now().Format("20060102-150405")+".jsonl")
	return func() tea.Msg {
		w, err := probe.Create(path)
		if err != nil {
			return savedMsg{err: err}
		}
		for _, r := range recs {
			w.Write(r)
		}
		return savedMsg{path: path, n: len(recs), err: w.Close()}
	}
}

func (m *Model) setStyles(dark bool) {
	m.dark = dark
	m.styles = newStyles(dark, m.cfg.Color)
	m.help.Styles = m.styles.Help
}

// render redraws the panels whose inputs changed (all of them after a
// resize or a new palette). While frozen only the header moves.
func (m *Model) render(all bool) {
	if m.width <= 0 || m.height <= 0 {
		return
	}
	m.redraws++
	m.lastDraw = m.now()
	if m.layEarlier != len(m.earlier()) {
		m.relayout()
		all = true
	}
	m.renderHeader()
	if m.frozen && !all {
		return
	}
	heavy := all || !m.live() || len(m.cur.Record.Frames) < bigRecord || m.now().Sub(m.lastHeavy) >= slowInterval
	if m.dirtyData && heavy {
		m.summarise()
	}
	if all || m.dirtyData || m.live() {
		m.renderTimeline()
	}
	if !heavy {
		return
	}
	m.lastHeavy = m.now()
	if all || m.dirtyText {
		m.renderText()
	}
	if all || m.dirtyData {
		m.renderClocks()
		m.renderGaps()
		m.renderHeatmap()
	}
	m.dirtyData, m.dirtyText = false, false
}

func (m *Model) renderHeader() {
	note := m.note
	if m.frozen {
		note = "drawing frozen (measuring continues) · space resumes"
	}
	if len(m.cfg.Sources) > 1 {
		name := "scenario " + m.cfg.Sources[m.src].Name
		if note != "" {
			note = name + " · " + note
		} else {
			note = name + " · n: next scenario"
		}
	}
	m.panels.header = views.Header(&m.cur, note, m.width, m.lay.headerH, &m.styles.Views)
}

func (m *Model) renderTimeline() {
	zoom := 0.0
	if m.zoom {
		zoom = zoomMS
	}
	m.panels.timeline = views.Timeline(&m.cur, m.earlier(), zoom, m.width, m.lay.tl.h-1, &m.styles.Views)
}

func (m *Model) renderText() {
	if m.lay.text.h <= 1 {
		return
	}
	m.text.wrapped.Update(m.cur.Record, m.lay.text.w)
	if m.follow {
		m.text.gotoBottom()
	}
}

func (m *Model) renderClocks() {
	m.panels.clocks = views.ClocksPanel(views.Clocks{Record: m.cur.Record, This: m.this, All: m.all},
		m.lay.clocks.w, m.lay.clocks.h-1, &m.styles.Views)
}

func (m *Model) renderGaps() {
	m.panels.gaps = views.Gaps(m.cur.Record, m.lay.gaps.w, m.lay.gaps.h-1, &m.styles.Views)
}

func (m *Model) renderHeatmap() {
	runs := m.earlier()
	runs = append(runs[:len(runs):len(runs)], m.cur.Record)
	m.panels.heatmap = views.Heatmap(runs, m.heatByTime, m.heatSkip, m.lay.heat.w, m.lay.heat.h-1, &m.styles.Views)
}
