package stats

import (
	"strconv"
)

// Count is "1 noun" or "n nouns": the count a line of evidence or a
// description says in words.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
