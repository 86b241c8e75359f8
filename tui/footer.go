package tui

import (
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// footer is a screen's help bar that always ends with "? help" and
// "q quit", however narrow the terminal: the other keys are cut first
// (help.Model alone would cut the last ones, which are those two).
func footer(h *help.Model, keys []key.Binding, helpKey, quitKey key.Binding, width int) string {
	fixed := help.New()
	fixed.Styles = h.Styles
	tail := fixed.ShortHelpView([]key.Binding{helpKey, quitKey})
	rest := h.Styles.ShortSeparator.Render(h.ShortSeparator)
	room := width - lipgloss.Width(tail) - lipgloss.Width(rest)
	var others []key.Binding
	for _, k := range keys {
		if k.Help().Key != helpKey.Help().Key && k.Help().Key != quitKey.Help().Key {
			others = append(others, k)
		}
	}
	if room <= 0 {
		return tail
	}
	fixed.SetWidth(room)
	head := fixed.ShortHelpView(others)
	if strings.TrimSpace(head) == "" {
		return tail
	}
	return head + rest + tail
}
