package views

// The drawing helpers every panel uses: durations as labels, cutting a
// panel to its box, axis steps, and rows of styled cells.

import (
	"math"
	"strings"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/textfmt"
)

// Note is a dim message in a panel's place (nothing to draw yet, too
// small), wrapped at words to the panel's width so it is read whole.
func Note(msg string, width, height int, st *Styles) string {
	if width <= 0 {
		return ""
	}
	lines := strings.Split(ansi.Wordwrap(msg, width, ""), "\n")
	for i, l := range lines {
		lines[i] = st.Dim.Render(l)
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// niceStep returns a 1-2-5 step of at least v.
func niceStep(v float64) float64 {
	if v <= 0 || math.IsNaN(v) {
		return 1
	}
	p := math.Pow(10, math.Floor(math.Log10(v)))
	for _, m := range []float64{1, 2, 5, 10} {
		if m*p >= v {
			return m * p
		}
	}
	return 10 * p
}

// cellRow is a line of cells, each a rune with a style, rendered with one
// Render call per run of equal styles (Render is the expensive part).
type cellRow struct {
	r  []rune
	st []*lipgloss.Style
}

func newCellRow(width int, fill rune, st *lipgloss.Style) cellRow {
	l := cellRow{r: make([]rune, width), st: make([]*lipgloss.Style, width)}
	for i := range l.r {
		l.r[i], l.st[i] = fill, st
	}
	return l
}

func (l cellRow) set(i int, r rune, st *lipgloss.Style) {
	if i >= 0 && i < len(l.r) {
		l.r[i], l.st[i] = r, st
	}
}

// put writes s from cell i if it fits entirely in free cells (free reports
// whether a cell may be overwritten); it reports whether it wrote.
func (l cellRow) put(i int, s string, st *lipgloss.Style, free func(int) bool) bool {
	rs := []rune(s)
	if i < 0 || i+len(rs) > len(l.r) {
		return false
	}
	for j := range rs {
		if !free(i + j) {
			return false
		}
	}
	for j, r := range rs {
		l.r[i+j], l.st[i+j] = r, st
	}
	return true
}

func (l cellRow) String() string {
	return l.render(func(st *lipgloss.Style, text string) string { return st.Render(text) })
}

// render joins the row's runs of equal styles, each styled by style (an
// unstyled run as it is).
func (l cellRow) render(style func(st *lipgloss.Style, text string) string) string {
	var b strings.Builder
	for i := 0; i < len(l.r); {
		j := i
		for j < len(l.r) && l.st[j] == l.st[i] {
			j++
		}
		seg := string(l.r[i:j])
		if l.st[i] != nil {
			seg = style(l.st[i], seg)
		}
		b.WriteString(seg)
		i = j
	}
	return b.String()
}
