package tui

import (
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
)

// KeyMap is every key the live view answers to. It implements help.KeyMap.
type KeyMap struct {
	Rerun, Freeze, Focus, Zoom, HeatMode, Next, Save, Help, Quit key.Binding
	Back                                                         key.Binding // to the compare or run screen the stream was opened from
	PrevStream, NextStream                                       key.Binding // in drip view, another stream of the file
	Up, Down, PageUp, PageDown, Bottom                           key.Binding
}

// DefaultKeyMap returns the live view's keys.
func DefaultKeyMap() KeyMap {
	return KeyMap{
		Rerun:    key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-run")),
		Freeze:   key.NewBinding(key.WithKeys("space"), key.WithHelp("space", "freeze drawing")),
		Focus:    key.NewBinding(key.WithKeys("tab", "shift+tab"), key.WithHelp("tab", "focus")),
		Zoom:     key.NewBinding(key.WithKeys("z"), key.WithHelp("z", "zoom timeline")),
		HeatMode: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "heatmap: frames/time")),
		Next:     key.NewBinding(key.WithKeys("n"), key.WithHelp("n", "next scenario")),
		Save:     key.NewBinding(key.WithKeys("s"), key.WithHelp("s", "save records")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
		Back:     key.NewBinding(key.WithKeys("esc"), key.WithHelp("esc", "back"), key.WithDisabled()),
		// "[" and "]" move as a pager's previous and next do. Only drip
		// view has a file to move through.
		PrevStream: key.NewBinding(key.WithKeys("["), key.WithHelp("[", "earlier stream"), key.WithDisabled()),
		NextStream: key.NewBinding(key.WithKeys("]"), key.WithHelp("]", "later stream"), key.WithDisabled()),
		Up:         key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/k", "scroll up")),
		Down:       key.NewBinding(key.WithKeys("down", "j"), key.WithHelp("↓/j", "scroll down")),
		PageUp:     key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
		PageDown:   key.NewBinding(key.WithKeys("pgdown"), key.WithHelp("pgdn", "page down")),
		Bottom:     key.NewBinding(key.WithKeys("end", "G"), key.WithHelp("end", "follow the tail")),
	}
}

// ShortHelp is the help bar.
func (k KeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Back, k.PrevStream, k.NextStream, k.Rerun, k.Next, k.Freeze, k.Focus, k.Zoom, k.HeatMode, k.Save, k.Help, k.Quit}
}

// FullHelp is the help shown with "?".
func (k KeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Rerun, k.Next, k.PrevStream, k.NextStream, k.Freeze, k.Save},
		{k.Focus, k.Up, k.Down, k.PageUp, k.PageDown, k.Bottom},
		{k.Zoom, k.HeatMode, k.Back, k.Help, k.Quit},
	}
}

// listKeys move a selection (or a scroll position) through a list. The
// run and compare screens share them.
type listKeys struct {
	Up, Down, PageUp, PageDown, Top key.Binding
}

// move applies a list key to sel over n items, a page at a time for
// pgup/pgdn. It reports false for any other key.
func (k *listKeys) move(msg tea.KeyPressMsg, sel, n, page int) (int, bool) {
	switch {
	case key.Matches(msg, k.Up):
		sel--
	case key.Matches(msg, k.Down):
		sel++
	case key.Matches(msg, k.PageUp):
		sel -= page
	case key.Matches(msg, k.PageDown):
		sel += page
	case key.Matches(msg, k.Top):
		sel = 0
	default:
		return sel, false
	}
	return max(0, min(sel, n-1)), true
}
