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

var errNotANumber = errors.New("a count or duration that is not a number")

func (c *tokenCount) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		return nil
	}
	if n, err := strconv.Atoi(string(b)); err == nil {
		*c = tokenCount{n: n, known: true}
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err != nil && !errors.Is(err, strconv.ErrRange):
		return errNotANumber
	case f == math.Trunc(f) && math.Abs(f) <= 1<<53:
		*c = tokenCount{n: int(f), known: true}
	default:
		*c = tokenCount{odd: true}
	}
	return nil
}

// number is a value a server reports beside its events (input tokens,
// latencies, Ollama's durations): v is nil when absent, null, or beyond a
// float64 (1e400), which drops that value only (as a *float64 it made
// encoding/json refuse the event: Ollama's done line, and the stream read
// as incomplete). What is not a number still fails, as it did.
type number struct{ v *float64 }

func (n *number) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		n.v = nil
		return nil
	}
	f, err := strconv.ParseFloat(string(b), 64)
	switch {
	case err == nil:
		n.v = &f
	case errors.Is(err, strconv.ErrRange):
		n.v = nil
	default:
		return errNotANumber
	}
	return nil
}
