package views

import (
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/record"
)

// TestHeaderKeepsTheScenario: at 80 columns drip demo's status line cut
// the scenario it names ("scenario buffer…", "n: n…") or lost it behind a
// long error message; it drops the hint the help bar repeats, then the
// end of the message, and keeps the scenario whole.
func TestHeaderKeepsTheScenario(t *testing.T) {
	st := NewStyles(true, false)
	failed := &record.Record{Status: record.StatusFailed, DurationMS: 274,
		Error: &record.Error{Class: record.ErrReset, Message: "read tcp 127.0.0.1:39320->127.0.0.1:46631: read: connection reset by peer"}}
	for _, tc := range []struct {
		name  string
		r     *record.Record
		note  string
		wants []string
	}{
		{"buffered", replay(t, "buffered-burst", 0), "scenario buffered-burst · n: next scenario", []string{"done ", "buffered", "· scenario buffered-burst"}},
		{"no end marker", replay(t, "no-end-marker", 0), "scenario no-end-marker · n: next scenario", []string{"incomplete (no end marker)", "· scenario no-end-marker"}},
		{"failed", failed, "scenario abort-midstream · n: next scenario", []string{"failed: reset — read tcp", "…", "· scenario abort-midstream"}},
		{"fits", replay(t, "steady", 0), "scenario steady · n: next scenario", []string{"· scenario steady · n: next scenario"}},
	} {
		line := ansi.Strip(Header(&Stream{Run: 1, Phase: PhaseDone, Record: tc.r}, tc.note, 80, 1, &st))
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("%s: %d columns: %q", tc.name, w, line)
		}
		for _, want := range tc.wants {
			if !strings.Contains(line, want) {
				t.Errorf("%s: %q lacks %q", tc.name, line, want)
			}
		}
		if strings.HasSuffix(strings.TrimRight(line, " "), "…") {
			t.Errorf("%s: the note is cut: %q", tc.name, line)
		}
	}
}
