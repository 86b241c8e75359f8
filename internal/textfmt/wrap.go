package textfmt

import (
	"strings"

	"github.com/charmbracelet/x/ansi"
)

// Lines lays items out in lines of at most width cells, sep between two
// on a line and as many on each as fit. The first line is led by first,
// each later one by indent. An item wider than its line is left whole on a
// line of its own (Wrap cuts it instead). No items make one line, first.
func Lines(items []string, sep string, width int, first, indent string) []string {
	var out []string
	line, lineW, empty := first, Width(first), true
	sepW := Width(sep)
	for _, it := range items {
		w := Width(it)
		if !empty && lineW+sepW+w > width {
			out = append(out, line)
			line, lineW, empty = indent, Width(indent), true
		}
		if !empty {
			line, lineW = line+sep, lineW+sepW
		}
		line, lineW, empty = line+it, lineW+w, false
	}
	return append(out, line)
}

// Wrap breaks s into lines of at most width cells at its spaces only,
// escape sequences measured as nothing. A word is never split at a hyphen
// or a sign ("-0.0%" stays whole, where ansi.Wrap broke it after the
// "-"), and a word wider than a line is cut into lines of its own.
func Wrap(s string, width int) []string {
	var words []string
	// Only plain spaces break, because a no-break space holds what it joins.
	for _, w := range strings.FieldsFunc(s, func(r rune) bool { return r == ' ' }) {
		if Width(w) > width && width > 0 {
			words = append(words, strings.Split(ansi.Hardwrap(w, width, false), "\n")...)
			continue
		}
		words = append(words, w)
	}
	return Lines(KeepUnits(words), " ", width, "", "")
}

// KeepUnits joins a time unit to the figure before it ("700" and "ms"
// become "700 ms"), so a wrapped line never ends in a bare number whose
// unit starts the next. A unit may carry the punctuation after it.
func KeepUnits(words []string) []string {
	out := make([]string, 0, len(words))
	for _, w := range words {
		if n := len(out); n > 0 && isTimeUnit(ansi.Strip(w)) && endsInDigit(ansi.Strip(out[n-1])) {
			out[n-1] += " " + w
			continue
		}
		out = append(out, w)
	}
	return out
}

func isTimeUnit(w string) bool {
	w = strings.TrimRight(w, ".,;:)…")
	return w == "ms" || w == "s"
}

func endsInDigit(w string) bool {
	return w != "" && w[len(w)-1] >= '0' && w[len(w)-1] <= '9'
}
