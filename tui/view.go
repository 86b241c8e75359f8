package tui

import tea "charm.land/bubbletea/v2"

// View returns the screen. Bubble Tea calls it after every message, most
// of them probe notifications that change nothing on screen, so the
// screen's joined panels are cached until an update changes them.
func (m *Model) View() tea.View {
	v := tea.NewView("")
	v.AltScreen = true
	if !m.sh.sized() || m.quitting {
		return v
	}
	if m.viewDirty {
		m.composed = m.active.view()
		m.viewDirty = false
	}
	v.SetContent(m.composed)
	return v
}
