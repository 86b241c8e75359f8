package stats

import (
	"strconv"
)

// Count says n in words, as "1 noun" or "n nouns", for a line of evidence
// or a description.
func Count(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + noun + "s"
}
