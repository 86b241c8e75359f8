package stats

import (
	"cmp"
	"slices"
	"strings"
)

// FailureMessage is one message the failed streams of one error class
// carried, as their records keep it (a server's key masked), and how many
// streams carried it.
type FailureMessage struct {
	Class   string `json:"class"`
	Message string `json:"message"`
	Count   int    `json:"count"`
}

// Bounds of the messages a summary keeps. Without them, a server that
// puts a request id in every error would make each stream its own message.
const (
	// TopFailureMessages is how many messages of each class a summary
	// lists, the most frequent first.
	TopFailureMessages = 3
	// failureMessagesKept is how many distinct messages of one class are
	// counted. Later ones count under OtherFailureMessages.
	failureMessagesKept = 64
)

// OtherFailureMessages stands for the messages of a class past the ones
// counted one by one.
const OtherFailureMessages = "(other messages)"

// FailureCounts counts failed streams by class and message. The zero
// value is ready to use.
type FailureCounts struct {
	byClass map[string]map[string]int
}

// Add counts n streams of class that failed with msg.
func (f *FailureCounts) Add(class, msg string, n int) {
	if f.byClass == nil {
		f.byClass = map[string]map[string]int{}
	}
	m := f.byClass[class]
	if m == nil {
		m = map[string]int{}
		f.byClass[class] = m
	}
	if _, seen := m[msg]; !seen && len(m) >= failureMessagesKept {
		msg = OtherFailureMessages
	}
	m[msg] += n
}

// Top returns each class's most frequent messages, at most
// TopFailureMessages of each. The class with the most streams comes
// first, and ties go by name. Top returns nil when none was counted.
func (f *FailureCounts) Top() []FailureMessage {
	type class struct {
		name string
		n    int
	}
	var classes []class
	for name, m := range f.byClass {
		c := class{name: name}
		for _, n := range m {
			c.n += n
		}
		classes = append(classes, c)
	}
	slices.SortFunc(classes, func(a, b class) int { return cmp.Or(b.n-a.n, strings.Compare(a.name, b.name)) })
	var out []FailureMessage
	for _, c := range classes {
		var msgs []FailureMessage
		for msg, n := range f.byClass[c.name] {
			msgs = append(msgs, FailureMessage{Class: c.name, Message: msg, Count: n})
		}
		slices.SortFunc(msgs, func(a, b FailureMessage) int {
			return cmp.Or(b.Count-a.Count, strings.Compare(a.Message, b.Message))
		})
		out = append(out, msgs[:min(len(msgs), TopFailureMessages)]...)
	}
	return out
}

// MergeFailureMessages pools the messages of several summaries, as drip
// merge --summaries does. The counts of one class and message add up, and
// the most frequent of each class are kept. A message one summary left out
// of its top counts only where it was listed.
func MergeFailureMessages(lists ...[]FailureMessage) []FailureMessage {
	var f FailureCounts
	for _, l := range lists {
		for _, m := range l {
			f.Add(m.Class, m.Message, m.Count)
		}
	}
	return f.Top()
}
