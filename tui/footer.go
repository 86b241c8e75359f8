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
	if room <= 0 {
		return tail
	}
	// The other keys in order while they fit, measured whole: "…" says
	// some were cut (all of them are in the ? help).
	var shown []key.Binding
	head := ""
	for _, k := range keys {
		if !k.Enabled() || k.Help().Key == helpKey.Help().Key || k.Help().Key == quitKey.Help().Key {
			continue
		}
		next := fixed.ShortHelpView(append(shown, k))
		if lipgloss.Width(next) > room-2 {
			head += " …"
			break
		}
		shown, head = append(shown, k), next
	}
	if strings.TrimSpace(head) == "" || head == " …" {
		return tail
	}
	return head + rest + tail
}

// helpBar is a screen's footer: the full help after "?", else the short
// bar with "? help" and "q quit" kept.
func helpBar(h *help.Model, km help.KeyMap, helpKey, quitKey key.Binding, width int) string {
	if h.ShowAll {
		return h.View(km)
	}
	return footer(h, km.ShortHelp(), helpKey, quitKey, width)
}

// helpPanel is a screen's help bar as a panel of its layout; it reads the
// screen's key map, whose keys are enabled and disabled as the screen goes.
type helpPanel struct {
	h                *help.Model
	km               help.KeyMap
	helpKey, quitKey *key.Binding
}

func (p helpPanel) draw(b box) string { return helpBar(p.h, p.km, *p.helpKey, *p.quitKey, b.w) }
