package hops

import (
	"strings"
	"testing"
)

// A client stall holding 100,000 of the relay's stalls reads as one short
// line: the first five and a count of the rest.
func TestRelayStallsNamesAFewAndCountsTheRest(t *testing.T) {
	t.Parallel()
	st := Stall{Upstream: make([]RelayStall, 100_000)}
	for i := range st.Upstream {
		st.Upstream[i].GapMS = 300
	}
	got := relayStalls(st)
	if want := " (300 ms, 300 ms, 300 ms, 300 ms, 300 ms, and 99995 more)"; got != want {
		t.Errorf("relayStalls = %.80q…, want %q", got, want)
	}
	two := relayStalls(Stall{Upstream: []RelayStall{{GapMS: 700.2}, {GapMS: 300.1}}})
	if two != " (700 ms, 300 ms)" || strings.Contains(two, "more") {
		t.Errorf("two stalls read %q", two)
	}
}
