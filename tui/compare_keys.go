package tui

import "charm.land/bubbles/v2/key"

// CompareKeyMap is every key the compare screen answers to. It implements
// help.KeyMap. Keys that do nothing in the current panel are disabled, so
// the help bar shows only what works.
type CompareKeyMap struct {
	Next, Prev, Panel key.Binding // Panel (1-5) is in Next's help
	listKeys
	Left, Right, Open, HeatMode key.Binding
	Help, Quit                  key.Binding
}

// DefaultCompareKeyMap returns the compare screen's keys.
func DefaultCompareKeyMap() CompareKeyMap {
	return CompareKeyMap{
		Next:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab/1-5", "panel")),
		Prev:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "panel back")),
		Panel: key.NewBinding(key.WithKeys("1", "2", "3", "4", "5")),
		listKeys: listKeys{
			Up:       key.NewBinding(key.WithKeys("up", "k"), key.WithHelp("↑/↓", "scroll")),
			Down:     key.NewBinding(key.WithKeys("down", "j")),
			PageUp:   key.NewBinding(key.WithKeys("pgup"), key.WithHelp("pgup", "page up")),
			PageDown: key.NewBinding(key.WithKeys("pgdown", "space"), key.WithHelp("pgdn", "page down")),
			Top:      key.NewBinding(key.WithKeys("home", "g"), key.WithHelp("home", "top")),
		},
		Left:     key.NewBinding(key.WithKeys("left", "h"), key.WithHelp("←/→", "run")),
		Right:    key.NewBinding(key.WithKeys("right", "l")),
		Open:     key.NewBinding(key.WithKeys("enter"), key.WithHelp("enter", "open")),
		HeatMode: key.NewBinding(key.WithKeys("b"), key.WithHelp("b", "frames/time")),
		Help:     key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:     key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the help bar.
func (k CompareKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Next, k.Up, k.Left, k.Open, k.HeatMode, k.Help, k.Quit}
}

// FullHelp is the help shown with "?".
func (k CompareKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{
		{k.Next, k.Prev},
		{k.Up, k.PageUp, k.PageDown, k.Top},
		{k.Left, k.Open, k.HeatMode},
		{k.Help, k.Quit},
	}
}
