package sanitize

import (
	"io"
	"sync"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Writer is the backstop at drip's exits to a terminal (stdout and stderr
// of every command but the full-screen views). Whatever a caller forgot to
// pass through Text or Line, no byte that can drive a terminal gets out.
// C0 controls but newline and tab are shown in caret notation (^[ for
// ESC), so a sequence arrives as inert text. DEL, C1 and every other
// non-graphic rune (bidi overrides, …) become a \uXXXX escape. Inside the
// JSON drip prints that is the same string, so --json output stays exact.
// Invalid UTF-8 becomes U+FFFD. It is safe for concurrent use, and a rune
// cut between two writes is held until the next.
type Writer struct {
	mu      sync.Mutex
	w       io.Writer
	pending []byte // the start of a rune the last Write ended in
	buf     []byte
}

// NewWriter returns a Writer in front of w.
func NewWriter(w io.Writer) *Writer { return &Writer{w: w} }

// Write writes the sanitised p and reports all of p written when w took it.
func (w *Writer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	n := len(p)
	if len(w.pending) == 0 && isPlain(string(p), true) {
		if _, err := w.w.Write(p); err != nil {
			return 0, err
		}
		return n, nil
	}
	if len(w.pending) > 0 {
		p = append(w.pending, p...)
		w.pending = nil
	}
	out := w.buf[:0]
	for i := 0; i < len(p); {
		c := p[i]
		if c < utf8.RuneSelf {
			out = appendASCII(out, c)
			i++
			continue
		}
		if !utf8.FullRune(p[i:]) {
			w.pending = append([]byte(nil), p[i:]...)
			break
		}
		r, size := utf8.DecodeRune(p[i:])
		switch {
		case r == utf8.RuneError && size == 1:
			out = append(out, "\uFFFD"...)
		case r == zeroWidthJoiner || unicode.IsGraphic(r):
			out = append(out, p[i:i+size]...)
		default:
			out = appendEscape(out, r)
		}
		i += size
	}
	w.buf = out
	if _, err := w.w.Write(out); err != nil {
		return 0, err
	}
	return n, nil
}

func appendASCII(out []byte, c byte) []byte {
	switch {
	case c == '\n' || c == '\t' || (c >= 0x20 && c != 0x7f):
		return append(out, c)
	case c == 0x7f:
		return appendEscape(out, rune(c))
	}
	return append(out, '^', c+'@')
}

// appendEscape writes r as JSON writes a rune it escapes, as \uXXXX or as
// a surrogate pair past the BMP.
func appendEscape(out []byte, r rune) []byte {
	const hex = "0123456789abcdef"
	units := []rune{r}
	if r > 0xffff {
		a, b := utf16.EncodeRune(r)
		units = []rune{a, b}
	}
	for _, u := range units {
		out = append(out, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
	}
	return out
}
