package tui

import (
	"bytes"
	"strconv"
	"strings"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	"charm.land/lipgloss/v2"
)

// footer is a screen's help bar that always ends with "? help" and
// "q quit", however narrow the terminal. The other keys are cut first,
// as help.Model alone would cut the last ones, which are those two.
func footer(h *help.Model, keys []key.Binding, helpKey, quitKey key.Binding, width int) string {
	fixed := help.New()
	fixed.Styles = h.Styles
	tail := fixed.ShortHelpView([]key.Binding{helpKey, quitKey})
	rest := h.Styles.ShortSeparator.Render(h.ShortSeparator)
	room := width - lipgloss.Width(tail) - lipgloss.Width(rest)
	if room <= 0 {
		return tail
	}
	// Show the other keys in order while they fit, measured whole. A "…"
	// says some were cut (all of them are in the ? help).
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

// helpBar is a screen's footer. It is the full help after "?", else the
// short bar with "? help" and "q quit" kept.
func helpBar(h *help.Model, km help.KeyMap, helpKey, quitKey key.Binding, width int) string {
	if h.ShowAll {
		return h.View(km)
	}
	return footer(h, km.ShortHelp(), helpKey, quitKey, width)
}

// helpMemo keeps a help bar for the keys, their state and the width it
// was drawn for. The bar is drawn on every redraw, but its keys change
// only on a key press. A screen resets it when its styles change.
type helpMemo struct {
	key     []byte
	view    string
	scratch []byte
}

// bar is helpBar, drawn again only when what it shows changed.
func (m *helpMemo) bar(h *help.Model, km help.KeyMap, helpKey, quitKey key.Binding, width int) string {
	k := strconv.AppendInt(m.scratch[:0], int64(width), 10)
	k = strconv.AppendInt(append(k, ' '), int64(h.Width()), 10)
	k = strconv.AppendBool(append(k, ' '), h.ShowAll)
	k = appendFields(k, h.ShortSeparator, h.FullSeparator, h.Ellipsis)
	k = appendKeys(k, append(km.ShortHelp(), helpKey, quitKey))
	if h.ShowAll {
		for _, col := range km.FullHelp() {
			k = appendKeys(append(k, '|'), col)
		}
	}
	m.scratch = k
	if m.view == "" || !bytes.Equal(k, m.key) {
		m.view = helpBar(h, km, helpKey, quitKey, width)
		m.key = append(m.key[:0], k...)
	}
	return m.view
}

// appendKeys appends what a help bar shows of keys, which is each one's
// state, keys and help.
func appendKeys(b []byte, keys []key.Binding) []byte {
	for _, k := range keys {
		b = strconv.AppendBool(append(b, '|'), k.Enabled())
		b = appendFields(appendFields(b, k.Keys()...), k.Help().Key, k.Help().Desc)
	}
	return b
}

// appendFields appends each string with its length, so no two lists of
// strings append the same bytes.
func appendFields(b []byte, fields ...string) []byte {
	for _, f := range fields {
		b = append(strconv.AppendInt(append(b, ' '), int64(len(f)), 10), ':')
		b = append(b, f...)
	}
	return b
}

// reset forgets the bar, for styles that changed.
func (m *helpMemo) reset() { m.view = "" }

// helpPanel is a screen's help bar as a panel of its layout. It reads the
// screen's key map, whose keys are enabled and disabled as the screen goes.
type helpPanel struct {
	h                *help.Model
	km               help.KeyMap
	helpKey, quitKey *key.Binding
	memo             *helpMemo
}

func (p helpPanel) draw(b box) string { return p.memo.bar(p.h, p.km, *p.helpKey, *p.quitKey, b.w) }
