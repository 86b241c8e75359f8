package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/record"
)

// TestTTFTRuns draws the TTFT panel at 40, 80 and 120 columns over the
// view cases (go test ./views -update rewrites the goldens).
func TestTTFTRuns(t *testing.T) {
	st := NewStyles(true, false)
	for name, c := range cases(t) {
		runs := append(append([]*record.Record(nil), c.earlier...), c.cur.Record)
		for _, w := range []int{40, 80, 120} {
			out := TTFTRuns(runs, c.cur.Phase != PhaseDone, w, 5, &st)
			t.Run(fmt.Sprintf("%s/%d", name, w), func(t *testing.T) {
				checkWidth(t, out, w)
				golden.RequireEqual(t, out)
			})
		}
	}
}

// TestTTFTRunsSaysWhatIsNotABar: a run without a first token says so (a
// bar of 0 would read as an instant answer), the current one still
// running says it waits, and runs beyond the rows are counted, the
// latest kept.
func TestTTFTRunsSaysWhatIsNotABar(t *testing.T) {
	st := NewStyles(true, false)
	failed := &record.Record{Seq: 1}
	ok := replay(t, "steady", 0)
	live := &record.Record{Seq: 2}
	out := ansi.Strip(TTFTRuns([]*record.Record{ok, failed, live}, true, 40, 3, &st))
	for _, want := range []string{"#1 ", "#2 — no first token", "#3 waiting…"} {
		if !strings.Contains(out, want) {
			t.Errorf("lacks %q:\n%s", want, out)
		}
	}
	out = ansi.Strip(TTFTRuns([]*record.Record{ok, failed, ok, live}, false, 40, 3, &st))
	if lines := strings.Split(out, "\n"); !strings.HasPrefix(lines[0], "2 earlier runs above") || !strings.HasPrefix(lines[2], "#3 — no first token") {
		t.Errorf("4 runs in 3 rows:\n%s", out)
	}
	if got := TTFTFigures(summaryOf(ok).Metrics["ttft_ms"]); got != "p50 180 ms · p99 180 ms · n=1" {
		t.Errorf("TTFTFigures = %q", got)
	}
}
