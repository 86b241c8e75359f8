package tui

import "charm.land/bubbles/v2/key"

// TargetsKeyMap is every key the watch screen of several targets answers
// to. It implements help.KeyMap.
type TargetsKeyMap struct {
	Rerun, Next, Prev, Page key.Binding // Page (1-3) is in Next's help
	Help, Quit              key.Binding
}

// DefaultTargetsKeyMap returns the targets screen's keys.
func DefaultTargetsKeyMap() TargetsKeyMap {
	return TargetsKeyMap{
		Rerun: key.NewBinding(key.WithKeys("r"), key.WithHelp("r", "re-run all")),
		Next:  key.NewBinding(key.WithKeys("tab"), key.WithHelp("tab/1-3", "page")),
		Prev:  key.NewBinding(key.WithKeys("shift+tab"), key.WithHelp("shift+tab", "page back")),
		Page:  key.NewBinding(key.WithKeys("1", "2", "3")),
		Help:  key.NewBinding(key.WithKeys("?"), key.WithHelp("?", "help")),
		Quit:  key.NewBinding(key.WithKeys("q", "ctrl+c"), key.WithHelp("q", "quit")),
	}
}

// ShortHelp is the help bar.
func (k TargetsKeyMap) ShortHelp() []key.Binding {
	return []key.Binding{k.Rerun, k.Next, k.Help, k.Quit}
}

// FullHelp is the help shown with "?".
func (k TargetsKeyMap) FullHelp() [][]key.Binding {
	return [][]key.Binding{{k.Rerun}, {k.Next, k.Prev}, {k.Help, k.Quit}}
}
