package stats

import (
	"fmt"
	"testing"
)

// Each class keeps its three most frequent messages, classes with more
// streams first; a server that puts an id in every message fills the
// counted ones and the rest count as other messages.
func TestFailureCountsTop(t *testing.T) {
	t.Parallel()
	var f FailureCounts
	f.Add("http_429", "slow down", 5)
	for i := range failureMessagesKept + 10 {
		f.Add("http_5xx", fmt.Sprintf("req %d failed", i), 1)
	}
	f.Add("http_5xx", "req 3 failed", 1)
	got := f.Top()
	want := []FailureMessage{
		{"http_5xx", OtherFailureMessages, 10},
		{"http_5xx", "req 3 failed", 2},
		{"http_5xx", "req 0 failed", 1},
		{"http_429", "slow down", 5},
	}
	if fmt.Sprint(got) != fmt.Sprint(want) {
		t.Errorf("Top() = %v\nwant    %v", got, want)
	}
	merged := MergeFailureMessages([]FailureMessage{{"http_429", "slow down", 5}}, []FailureMessage{{"http_429", "slow down", 2}, {"http_4xx", "no", 1}})
	if fmt.Sprint(merged) != fmt.Sprint([]FailureMessage{{"http_429", "slow down", 7}, {"http_4xx", "no", 1}}) {
		t.Errorf("merged = %v", merged)
	}
}
