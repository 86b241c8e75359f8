package tui

import tea "charm.land/bubbletea/v2"

// Update takes the size and the palette into the shell, then routes the
// message. The run's ticks and a comparison's updates go to their screens
// whichever shows, and everything else to the screen showing.
func (m *Model) Update(msg tea.Msg) (tea.Model, tea.Cmd) {
	switch msg := msg.(type) {
	case beginMsg:
		return m, m.begin()
	case tea.WindowSizeMsg:
		m.sh.width, m.sh.height = msg.Width, msg.Height
		if m.beginPending {
			m.beginPending = false
			return m, tea.Batch(m.route(msg), m.after(beginDelay, beginMsg{}))
		}
	case tea.BackgroundColorMsg:
		m.sh.setStyles(msg.IsDark())
		m.restyle()
	}
	return m, m.route(msg)
}

func (m *Model) route(msg tea.Msg) tea.Cmd {
	if _, ok := msg.(feedMsg); !ok {
		m.viewDirty = true
	}
	switch msg := msg.(type) {
	case liveCompareTickMsg:
		if m.cmp != nil {
			return m.cmp.liveTick() // the runs go on while one of their streams is open
		}
	case runTickMsg:
		if m.rs != nil {
			return m.rs.tick(msg) // the run goes on while one of its streams is open
		}
	}
	return m.active.update(msg)
}

// restyle takes the shell's new styles into every screen there is.
func (m *Model) restyle() {
	m.stream.restyle()
	if m.cmp != nil {
		m.cmp.restyle()
	}
	if m.rs != nil {
		m.rs.restyle()
	}
	if m.ts != nil {
		m.ts.restyle()
	}
}
