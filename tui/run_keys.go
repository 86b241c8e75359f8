package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// RunKeyMap is every key the run screen answers to. It implements
// help.KeyMap.
type RunKeyMap struct {
	listKeys
	Follow, Open, HeatMode, Help, Quit key.Binding
	Next, Page                         key.Binding // pages, with Page (1-3) in Next's help
}

// DefaultRunKeyMap returns the run screen's keys.
func DefaultRunKeyMap() RunKeyMap {
	return RunKeyMap{
		listKeys: listKeys{
			Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "select stream")),
			Down:     key.NewBinding(key.WithKeys("down", "j")),
			PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
			PageDown: key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
			Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "first stream")),
		},
		Follow:   key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "follow the newest")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open stream")),
		HeatMode: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "heatmap: frames/time")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "stop and quit")),
		Next:     key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab/1-3", "page")),
		Page:     key.NewBinding(key.WithKeys("1", "2", "3")),
	}
}

// ShortHelp is the help bar.
func (k RunKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Up, k.Open, k.Follow, k.HeatMode, k.Help, k.Quit}
}

// FullHelp is the help shown with "?".
func (k RunKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Up, k.PageUp, k.PageDown, k.Top, k.Follow},
		{k.Open, k.HeatMode, k.Next},
		{k.Help, k.Quit},
	}
}

// handleKey handles a key on the run screen.
func (rs *runScreen) handleKey(msg tea.KeyPressMsg) tea.Cmd {
	k := &rs.keys
	page := max(1, rs.lay.table.b.h-3)
	switch {
	case key.Matches(msg, k.Quit):
		// Stop admitting and cancel the streams in flight. Their partial
		// records reach the sink before Wait returns.
		return rs.m.quit(msg)
	case key.Matches(msg, k.Open):
		rs.openSelected()
		return nil
	case key.Matches(msg, k.HeatMode):
		rs.byTime = !rs.byTime
	case key.Matches(msg, k.Next):
		rs.page = (rs.page + 1) % runPageCount
	case key.Matches(msg, k.Page):
		rs.page = runPage(msg.Text[0] - '1')
	case key.Matches(msg, k.Help):
		rs.help.ShowAll = !rs.help.ShowAll
	case key.Matches(msg, k.Follow):
		rs.follow = true
		rs.sel = len(rs.list) - 1
	case key.Matches(msg, k.Up, k.Down, k.PageUp, k.PageDown, k.Top):
		rs.sel, _ = k.move(msg, rs.sel, len(rs.list), page)
		// Moving away from the newest stream holds the selection. Moving
		// back onto it follows again.
		rs.follow = rs.sel == len(rs.list)-1
	default:
		return nil
	}
	rs.render(true)
	return nil
}
