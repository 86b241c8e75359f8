// Package textfmt is drip's one text toolkit. It holds figures as text
// (numbers and their units), widths measured in terminal cells, padding,
// cutting with "…" and wrapping at spaces. It imports no drip package but
// its own numfmt, so the report, the screens, the comparison and the sweep
// format alike.
package textfmt

import (
	"math"
	"strconv"

	"github.com/driplab/drip/internal/textfmt/numfmt"
)

// Num formats an optional figure. Undefined is an em dash, never 0.
func Num(v *float64) string {
	if v == nil {
		return "—"
	}
	return FormatFloat(*v)
}

// Whole formats an optional count as a whole number without decimals (38,
// not 38.00), and any other figure as Num.
func Whole(v *float64) string {
	if v != nil && *v == math.Trunc(*v) && math.Abs(*v) < 1e15 {
		return strconv.FormatFloat(*v, 'f', 0, 64)
	}
	return Num(v)
}

// FormatFloat prints a figure with precision that suits its size. It is
// numfmt.Float, which stats uses without the terminal packages.
func FormatFloat(v float64) string { return numfmt.Float(v) }

// Times is "once" or "N times", for a flag given more often than it may be.
func Times(n int) string {
	if n == 1 {
		return "once"
	}
	return strconv.Itoa(n) + " times"
}

// MS prints a duration given in milliseconds, the one way every screen,
// report and message prints one. It is numfmt.MS.
func MS(ms float64) string { return numfmt.MS(ms) }

// OptMS prints an optional duration as MS does, and undefined as "—".
func OptMS(ms *float64) string { return numfmt.OptMS(ms) }

// SignedMS prints a change of a duration with its sign. It is
// numfmt.SignedMS.
func SignedMS(ms float64) string { return numfmt.SignedMS(ms) }

// Plus puts a plus sign before a positive figure's text. It is
// numfmt.Plus.
func Plus(v float64, text string) string { return numfmt.Plus(v, text) }

// MSRange prints a range of durations, the unit said once when both ends
// share it. It is numfmt.MSRange.
func MSRange(lo, hi float64) string { return numfmt.MSRange(lo, hi) }

// MSApart prints an interval's ends, and figures beside them, so that
// the ends never read alike. It is numfmt.MSApart.
func MSApart(lo, hi float64, beside ...float64) []string { return numfmt.MSApart(lo, hi, beside...) }
