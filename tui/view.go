package tui

import (
	"strings"

	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/views"
)

// box is a panel's size; h counts its title line, and 0 hides it.
type box struct{ w, h int }

// layout places the panels for a terminal size: everything at 120×40, a
// compact arrangement at 80×24, the text and clocks stacked below 72
// columns, and panels dropped (heatmap and gaps first) when rows run out.
type layout struct {
	headerH, helpH               int
	tl, text, clocks, gaps, heat box
	stacked                      bool
}

func (m *Model) relayout() {
	w, h := m.width, m.height
	l := layout{headerH: 1, helpH: 1}
	if h >= 30 {
		l.headerH = 2
	}
	if m.help.ShowAll {
		l.helpH = lipgloss.Height(helpBar(&m.help, m.keys, m.keys.Help, m.keys.Quit, m.width))
	}
	if h < 8 {
		l.helpH = 0
	}
	avail := h - l.headerH - l.helpH
	// The timeline: current row, markers, axis, and earlier runs as room allows.
	maxEarlier := max(0, min(avail/5, 8)-3)
	l.tl = box{w, min(avail, 4+min(len(m.earlier()), maxEarlier))}
	rest := avail - l.tl.h
	const clockRows = 13
	switch {
	case w >= 72:
		cw := 40
		switch {
		case w >= 160:
			cw = 82
		case w >= 120:
			cw = 46
		}
		mid := max(min(rest, clockRows+1), (rest*55)/100)
		bottom := rest - mid
		if bottom < 4 {
			mid, bottom = rest, 0
		}
		l.text, l.clocks = box{w - cw - 1, mid}, box{cw, mid}
		if bottom > 0 {
			l.gaps = box{w / 2, bottom}
			l.heat = box{w - w/2 - 1, bottom}
		}
	default:
		l.stacked = true
		ch := min(clockRows+1, rest/2)
		l.clocks = box{w, ch}
		l.text = box{w, rest - ch}
	}
	l.text.h = max(l.text.h, 0)
	m.lay = l
	m.layEarlier = len(m.earlier())
	m.text.width, m.text.height = l.text.w, max(0, l.text.h-1)
	m.help.SetWidth(w)
}

// View returns the screen. Bubble Tea calls it after every message, most
// of them probe notifications that change nothing on screen, so the joined
// panels are cached until an update changes them.
func (m *Model) View() tea.View {
	v := tea.NewView("")
	v.AltScreen = true
	if m.width <= 0 || m.height <= 0 || m.quitting {
		return v
	}
	if m.viewDirty {
		m.composed = m.compose()
		m.viewDirty = false
	}
	v.SetContent(m.composed)
	return v
}

// compose joins the cached panels; it never renders a plot itself.
func (m *Model) compose() string {
	if m.screen == screenCompare {
		return m.composeCompare()
	}
	if m.screen == screenRun {
		return m.composeRun()
	}
	if m.screen == screenTargets {
		return m.composeTargets()
	}
	st := &m.styles
	l := &m.lay
	parts := []string{m.panels.header}
	if l.tl.h > 0 {
		parts = append(parts, m.title("timeline", views.TimelineLegend(&st.Views), l.tl.w, false), m.panels.timeline)
	}
	text := ""
	if l.text.h > 0 {
		scroll := ""
		if !m.follow {
			scroll = "scrolled · end follows the tail"
		}
		text = m.title("text", scroll, l.text.w, m.focus == focusText) + "\n" + m.text.render(&m.styles.Views)
	}
	clocks := ""
	if l.clocks.h > 0 {
		clocks = m.title("clocks", "", l.clocks.w, false) + "\n" + views.Fit(m.panels.clocks, l.clocks.w, l.clocks.h-1)
	}
	switch {
	case l.stacked:
		parts = append(parts, clocks, text)
	default:
		parts = append(parts, views.JoinColumns(" ", views.Fit(text, l.text.w, l.text.h), views.Fit(clocks, l.clocks.w, l.clocks.h)))
	}
	if l.gaps.h > 0 {
		gaps := m.title("gaps", "log buckets", l.gaps.w, false) + "\n" + views.Fit(m.panels.gaps, l.gaps.w, l.gaps.h-1)
		mode := "runs × frame index · b: time"
		if m.heatByTime {
			mode = "runs × time · b: frame index"
		}
		heat := m.title("heatmap", mode, l.heat.w, m.focus == focusHeatmap) + "\n" + views.Fit(m.panels.heatmap, l.heat.w, l.heat.h-1)
		parts = append(parts, views.JoinColumns(" ", views.Fit(gaps, l.gaps.w, l.gaps.h), views.Fit(heat, l.heat.w, l.heat.h)))
	}
	if l.helpH > 0 {
		parts = append(parts, helpBar(&m.help, m.keys, m.keys.Help, m.keys.Quit, m.width))
	}
	return views.Fit(strings.Join(nonEmpty(parts), "\n"), m.width, m.height)
}

// title is a panel's title line: its name, a rule, and a note.
func (m *Model) title(name, note string, w int, focused bool) string {
	st := &m.styles
	t := st.Views.Title.Render(" " + name + " ")
	if focused {
		t = st.Views.TitleFocused.Render(" " + name + " ")
	}
	if note != "" {
		t += " " + note
	}
	rest := w - lipgloss.Width(t) - 1
	if rest > 0 {
		t += " " + st.Rule.Render(strings.Repeat("─", rest))
	}
	return ansi.Truncate(t, w, "")
}

func nonEmpty(parts []string) []string {
	out := parts[:0]
	for _, p := range parts {
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}
