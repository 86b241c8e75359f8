// Package sanitize makes text from a server safe to print on a terminal.
// Everything a server sends — content, error messages, model names, header
// values — passes through here before it reaches a screen. Records keep
// the original text, JSON-escaped.
package sanitize

import (
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// zeroWidthJoiner is format category (Cf) but harmless and needed by emoji.
const zeroWidthJoiner = '\u200d'

// Text removes terminal escape sequences (CSI, OSC, DCS, APC, …) and shows
// every other control or format rune escaped. C0 shows in caret notation
// (^M for CR, ^H for backspace), and C1, DEL and Cf runes such as bidi
// overrides show as <U+XXXX>. Newlines and tabs are kept. Invalid UTF-8 becomes U+FFFD.
func Text(s string) string { return clean(s, true) }

// Line is Text for one line, where newlines and tabs become spaces.
func Line(s string) string { return clean(s, false) }

func clean(s string, multiline bool) string {
	if isPlain(s, multiline) {
		return s
	}
	// Invalid bytes first, so no raw 8-bit C1 byte reaches the ANSI parser
	// as half a sequence. Then whole escape sequences go, payloads and all.
	s = ansi.Strip(strings.ToValidUTF8(s, "\uFFFD"))
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r == '\n' || r == '\t':
			if multiline {
				b.WriteRune(r)
			} else {
				b.WriteByte(' ')
			}
		case r < 0x20:
			b.WriteByte('^')
			b.WriteByte(byte(r) + '@')
		case r == zeroWidthJoiner || (unicode.IsGraphic(r) && r != 0x7f):
			b.WriteRune(r)
		default:
			fmt.Fprintf(&b, "<U+%04X>", r)
		}
	}
	return b.String()
}

// isPlain reports text that needs no work, which is printable ASCII (plus
// newline and tab when multiline). It keeps the common case allocation-free.
func isPlain(s string, multiline bool) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf || c == 0x7f || (c < 0x20 && !(multiline && (c == '\n' || c == '\t'))) {
			return false
		}
	}
	return true
}
