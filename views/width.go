package views

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Width is the cells s takes on screen. Plain ASCII, styled or not (the
// screens' figures, labels and most text), is measured a byte at a time,
// skipping escape sequences; only a string with other characters goes to
// ansi.StringWidth, whose grapheme segmentation is the costly part of
// every redraw.
func Width(s string) int {
	w := 0
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == 0x1b:
			n, ok := skipEscape(s[i:])
			if !ok {
				return ansi.StringWidth(s)
			}
			i += n - 1
		case c >= 0x20 && c < 0x7f:
			w++
		case c >= 0x80:
			return ansi.StringWidth(s)
		}
	}
	return w
}

// skipEscape is the length of the CSI (ESC [ … final) or OSC (ESC ] … BEL
// or ST) sequence s starts with; false for any other.
func skipEscape(s string) (int, bool) {
	if len(s) < 2 {
		return 0, false
	}
	switch s[1] {
	case '[':
		for i := 2; i < len(s); i++ {
			if s[i] >= 0x40 && s[i] <= 0x7e {
				return i + 1, true
			}
		}
	case ']':
		for i := 2; i < len(s); i++ {
			if s[i] == 0x07 {
				return i + 1, true
			}
			if s[i] == 0x1b && i+1 < len(s) && s[i+1] == '\\' {
				return i + 2, true
			}
		}
	}
	return 0, false
}

// JoinColumns puts panels side by side, sep between them. Each panel must
// already be cut to its width and height (Fit): its lines are then joined
// as they are, with no measuring.
func JoinColumns(sep string, panels ...string) string {
	cols := make([][]string, len(panels))
	rows := 0
	for i, p := range panels {
		cols[i] = strings.Split(p, "\n")
		rows = max(rows, len(cols[i]))
	}
	var b strings.Builder
	for r := range rows {
		if r > 0 {
			b.WriteByte('\n')
		}
		for i, c := range cols {
			if i > 0 {
				b.WriteString(sep)
			}
			if r < len(c) {
				b.WriteString(c[r])
			}
		}
	}
	return b.String()
}

// FitParts is plain text of " · " parts in width cells: its last parts
// left out while it is too wide, then cut with "…". Cut at the width, a
// note read "a taller terminal shows every t".
func FitParts(s string, width int) string {
	if width <= 0 {
		return ""
	}
	for Width(s) > width && dropLastPart(&s) {
	}
	if Width(s) > width {
		return ansi.Truncate(s, width, "…")
	}
	return s
}

// CutWords is s in width cells, cut with "…" after its last whole word
// ("Please try…", where the width alone read "Please tr…"), or at the
// width when the whole words keep less than half of it.
func CutWords(s string, width int) string {
	if Width(s) <= width {
		return s
	}
	cut := ansi.Truncate(s, max(width-1, 0), "")
	if i := strings.LastIndex(cut, " "); i >= 0 && Width(cut[:i]) >= width/2 {
		cut = strings.TrimRight(cut[:i], " ·—:,;")
	}
	return cut + "…"
}

// wrapWords breaks s into rows of at most width cells at its spaces only,
// escape sequences measured as nothing: a word is never split at a hyphen
// or a sign ("-0.0%" stays whole, where ansi.Wrap broke it after the
// "-"), and a word wider than a row is cut into rows of its own.
func wrapWords(s string, width int) []string {
	var words []string
	// Plain spaces only: a no-break space holds what it joins.
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }) {
		if Width(w) > width && width > 0 {
			words = append(words, strings.Split(ansi.Hardwrap(w, width, false), "\n")...)
			continue
		}
		words = append(words, w)
	}
	return joinRows(words, " ", width)
}
