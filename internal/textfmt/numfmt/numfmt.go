// Package numfmt prints a figure as plain text. It is textfmt's number
// formatting without the terminal. It imports the standard library alone,
// so stats can print a gate's figure the way every report does and still
// pull in no terminal package.
package numfmt

import (
	"math"
	"strconv"
)

// Float prints a figure with precision that suits its size. A figure of
// a thousand or more has no decimals, and a figure under one has three.
func Float(v float64) string {
	a := math.Abs(v)
	switch {
	case a >= 1000:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 1, 64)
	case a >= 1:
		return strconv.FormatFloat(v, 'f', 2, 64)
	case a == 0:
		return "0"
	default:
		return strconv.FormatFloat(v, 'f', 3, 64)
	}
}
