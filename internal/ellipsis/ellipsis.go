// Package ellipsis cuts a message at a byte limit. It imports nothing but
// the standard library, so probe may use it (sanitize would pull a
// terminal library into probe, against the layers).
package ellipsis

import "unicode/utf8"

// Cut shortens s to at most n bytes, on a rune boundary (half a
// character is not text), and marks the cut with "…"; s within n is s.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}
