package textfmt

import (
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"github.com/charmbracelet/x/ansi"
)

// Width is the cells s takes on screen. Plain ASCII, styled or not (the
// screens' figures, labels and most text), and the symbols the screens
// draw with (box drawing, blocks, dots, arrows, all narrow) are measured
// a character at a time, skipping escape sequences. Only a string with
// other characters goes to ansi.StringWidth, whose grapheme segmentation
// is the costly part of every redraw.
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
			r, n := utf8.DecodeRuneInString(s[i:])
			if !isNarrow(r) {
				return ansi.StringWidth(s)
			}
			w++
			i += n - 1
		}
	}
	return w
}

// narrowRanges are the runes narrow may hold. They are Latin-1's and Latin
// Extended's letters and signs, and the blocks from General Punctuation to
// Dingbats (arrows, box drawing, blocks, shapes, symbols). Scripts whose
// letters join (Indic, Hangul) lie between and are left out.
var narrowRanges = [][2]rune{{0xa0, 0x250}, {0x2000, 0x27c0}}

// narrow holds each rune of narrowRanges that ansi.StringWidth
// measures one cell alone and that joins no neighbour in one grapheme (no
// mark, format or control character, nothing unassigned). Between two
// such runes, or one and ASCII, a grapheme always ends, so their widths
// add up.
var narrow = sync.OnceValue(func() []bool {
	set := make([]bool, narrowRanges[len(narrowRanges)-1][1])
	for _, rg := range narrowRanges {
		for r := rg[0]; r < rg[1]; r++ {
			if unicode.IsGraphic(r) && !unicode.Is(unicode.M, r) && ansi.StringWidth(string(r)) == 1 {
				set[r] = true
			}
		}
	}
	return set
})

func isNarrow(r rune) bool {
	set := narrow()
	return r >= 0 && int(r) < len(set) && set[r]
}

// skipEscape is the length of the CSI (ESC [ … final) or OSC (ESC ] … BEL
// or ST) sequence s starts with, and false for any other.
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

// PadLeft right-aligns s in width cells, where a wide rune takes two. A
// longer s is left whole.
func PadLeft(s string, width int) string {
	if n := Width(s); n < width {
		return strings.Repeat(" ", width-n) + s
	}
	return s
}

// PadRight left-aligns s in width cells. A longer s is left whole.
func PadRight(s string, width int) string {
	if w := Width(s); w < width {
		return s + strings.Repeat(" ", width-w)
	}
	return s
}

// FitLeft left-aligns s in exactly width cells, cut with … when too wide.
func FitLeft(s string, width int) string {
	s = ansi.Truncate(s, width, "…")
	return s + strings.Repeat(" ", max(0, width-Width(s)))
}

// FitRight right-aligns s in exactly width cells, cut with … when too wide.
func FitRight(s string, width int) string { return PadLeft(ansi.Truncate(s, width, "…"), width) }

// Fit cuts or pads every line of s to exactly width cells and height
// lines, so panels can be joined side by side without breaking the layout.
func Fit(s string, width, height int) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	lines := strings.Split(s, "\n")
	if len(lines) > height {
		lines = lines[:height]
	}
	for len(lines) < height {
		lines = append(lines, "")
	}
	for i, l := range lines {
		w := Width(l)
		if w > width {
			l = ansi.Truncate(l, width, "…")
			w = Width(l)
		}
		if w < width {
			l += strings.Repeat(" ", width-w)
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n")
}

// FitParts fits plain text of " · " parts in width cells. It leaves out
// the last parts while the text is too wide, then cuts it with "…". Cut at the width, a
// note read "a taller terminal shows every t".
func FitParts(s string, width int) string {
	if width <= 0 {
		return ""
	}
	for Width(s) > width && DropLastPart(&s) {
	}
	if Width(s) > width {
		return ansi.Truncate(s, width, "…")
	}
	return s
}

// DropLastPart drops a status's last " · " part. It says false when only
// one is left.
func DropLastPart(status *string) bool {
	i := strings.LastIndex(*status, " · ")
	if i < 0 {
		return false
	}
	*status = (*status)[:i]
	return true
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

// CutBytes shortens s to at most n bytes, on a rune boundary (half a
// character is not text), and marks the cut with "…". An s within n is
// returned as is. It is for a message kept to a byte limit, and FitLeft
// is the one for cells.
func CutBytes(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && !utf8.RuneStart(s[n]) {
		n--
	}
	return s[:n] + "…"
}

// Beside puts right beside left, whose lines are padded to col cells, in
// at most height lines, so two drawings stand side by side.
func Beside(left, right string, col, height int) string {
	l, r := strings.Split(left, "\n"), strings.Split(right, "\n")
	out := make([]string, max(len(l), len(r)))
	for i := range out {
		a, b := "", ""
		if i < len(l) {
			a = l[i]
		}
		if i < len(r) {
			b = r[i]
		}
		out[i] = a + strings.Repeat(" ", max(0, col-Width(a))) + b
	}
	if len(out) > height {
		out = out[:height]
	}
	return strings.Join(out, "\n")
}

// ColumnWidths are the cells each column of rows takes, its widest
// cell's, where a wide rune takes two.
func ColumnWidths(rows [][]string) []int {
	var widths []int
	for _, row := range rows {
		for j, c := range row {
			if j == len(widths) {
				widths = append(widths, 0)
			}
			widths[j] = max(widths[j], ansi.StringWidth(c))
		}
	}
	return widths
}
