package numfmt

import (
	"math"
	"strconv"
	"strings"
)

// msTier is one step of MS's scale. A figure that rounds below limit (in
// ms) prints divided by div with prec decimals and the unit.
type msTier struct {
	limit, div float64
	prec       int
	unit       string
}

// msTiers keep three significant figures at most. Past a second the unit
// turns to seconds, so a figure never needs more than four digits.
var msTiers = []msTier{
	{1, 1, 2, " ms"}, {10, 1, 1, " ms"}, {1000, 1, 0, " ms"},
	{10000, 1000, 2, " s"}, {100000, 1000, 1, " s"}, {math.Inf(1), 1000, 0, " s"},
}

// MS prints a duration given in milliseconds for a reader: "0.0012 ms",
// "0.42 ms", "4.2 ms", "687 ms", "2.49 s", "12.5 s", "125 s". Trailing
// zeros go, so an axis reads "2 ms" and "1.5 s". A figure is rounded before its tier is
// chosen, so 999.7 ms reads "1 s", not "1000 ms".
func MS(ms float64) string {
	if math.IsNaN(ms) {
		return "—"
	}
	if ms == 0 {
		return "0 ms"
	}
	sign, a := "", math.Abs(ms)
	if ms < 0 {
		sign = "-"
	}
	if a < 0.005 { // two significant digits, so a tiny figure never reads 0
		d := 1 - int(math.Floor(math.Log10(a)))
		return sign + trimZeros(strconv.FormatFloat(a, 'f', d, 64)) + " ms"
	}
	for _, t := range msTiers {
		p := math.Pow(10, float64(t.prec))
		r := math.Round(a/t.div*p) / p
		if r*t.div < t.limit {
			return sign + trimZeros(strconv.FormatFloat(r, 'f', t.prec, 64)) + t.unit
		}
	}
	return sign + "∞"
}

// OptMS prints an optional duration as MS does. Undefined is an em dash,
// as Num prints it.
func OptMS(ms *float64) string {
	if ms == nil {
		return "—"
	}
	return MS(*ms)
}

// trimZeros drops the zeros after a decimal point, and the point if
// nothing follows it.
func trimZeros(s string) string {
	if !strings.Contains(s, ".") {
		return s
	}
	return strings.TrimSuffix(strings.TrimRight(s, "0"), ".")
}

// SignedMS prints a change of a duration as MS does, with a plus sign
// when it grew: "+0.02 ms", "-0.5 ms", "0 ms".
func SignedMS(ms float64) string { return Plus(ms, MS(ms)) }

// Plus puts a plus sign before the text of a figure v that is above 0. A
// negative figure's text has its sign already.
func Plus(v float64, text string) string {
	if v > 0 {
		return "+" + text
	}
	return text
}

// MSRange prints a range of durations as MS prints each end, the unit said
// once when both ends share it: "95–105 ms", "500 ms–1 s", "1.5–2 s". Ends
// that print alike read as one figure.
func MSRange(lo, hi float64) string {
	l, h := MS(lo), MS(hi)
	if l == h {
		return l
	}
	lNum, lUnit, lOK := strings.Cut(l, " ")
	_, hUnit, hOK := strings.Cut(h, " ")
	if lOK && hOK && lUnit == hUnit {
		l = lNum
	}
	return l + "–" + h
}

// MSApart prints an interval's ends lo and hi, then any figures beside
// them (the change the interval is of), as MS does. When MS would print
// two different ends alike, all of them take the decimals that tell the
// ends apart, in the unit MS picks for the largest: an interval of 1115.3
// and 1122.8 ms reads "1.115 s" and "1.123 s", not "1.12 s" twice.
func MSApart(lo, hi float64, beside ...float64) []string {
	vs := append([]float64{lo, hi}, beside...)
	out := make([]string, len(vs))
	for i, v := range vs {
		out[i] = MS(v)
	}
	if lo == hi || out[0] != out[1] {
		return out
	}
	top := 0.0
	for _, v := range vs {
		top = max(top, math.Abs(v))
	}
	div, unit := 1.0, " ms"
	if strings.HasSuffix(MS(top), " s") {
		div, unit = 1000, " s"
	}
	for d := 1; d <= 6 && out[0] == out[1]; d++ {
		for i, v := range vs {
			out[i] = strconv.FormatFloat(v/div, 'f', d, 64) + unit
		}
	}
	return out
}
