package adapters

import (
	"errors"
	"math"
	"strconv"
)

// tokenCount is a token count as a server writes it in an event that may
// also carry text: an integer, or a number with an integral value (12.0,
// 1.2e1, as a float-minded encoder writes it), which is that integer. Any
// other number (2.5, 1e400) is odd: no count, but no reason to drop the
// event either (as an int field it made encoding/json refuse the whole
// chunk, its text with it). Null is no count, as absent; what is not a
// number (a string, an object) still fails, as it did. encoding/json
// hands over only valid JSON, so ParseFloat never sees "Inf" or "+1".
type tokenCount struct {
	n     int
	known bool // n is the count
	odd   bool // a number that is no count
}

var errNotANumber = errors.New("a token count that is not a number")

func (c *tokenCount) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if n, err := strconv.Atoi(string(b)); err == nil {
		*c = tokenCount{n: n, known: true}
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	var num *strconv.NumError
	switch {
	case err != nil && !(errors.As(err, &num) && num.Err == strconv.ErrRange):
		return errNotANumber
	case f == math.Trunc(f) && math.Abs(f) <= 1<<53:
		*c = tokenCount{n: int(f), known: true}
	default:
		*c = tokenCount{odd: true}
	}
	return nil
}
