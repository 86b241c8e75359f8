package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Streams that waited for a turn to connect are counted in the summary,
// with their waits, and named in the text report; a run where none waited
// has no ramp at all.
func TestConnectRampInSummaryAndText(t *testing.T) {
	t.Parallel()
	agg := stats.NewAggregate(stats.DefaultStall)
	for i, wait := range []float64{0, 30, 10} {
		r := &record.Record{Seq: i, Phase: record.PhaseMeasure, Status: record.StatusComplete, DurationMS: 100}
		if wait > 0 {
			r.ConnectWaitMS = &wait
		}
		agg.Add(r)
	}
	s := agg.Summary(stats.Workload{})
	if c := s.ConnectRamp; c == nil || c.Waited != 2 || c.Wait.Max == nil || *c.Wait.Max != 30 || *c.Wait.P50 != 20 {
		t.Fatalf("connect ramp %+v, want 2 streams waited, p50 20 max 30", c)
	}
	var b bytes.Buffer
	Text(&b, &s)
	if want := "ramp      2 of 3 streams waited for a turn to connect: wait p50 20 ms p99"; !strings.Contains(b.String(), want) {
		t.Errorf("text report lacks %q:\n%s", want, b.String())
	}
	for _, l := range strings.Split(b.String(), "\n") {
		if n := len([]rune(l)); n > Width && !strings.HasPrefix(l, "drip · ") {
			t.Errorf("line %d columns wide, over %d: %q", n, Width, l)
		}
	}

	none := stats.NewAggregate(stats.DefaultStall)
	none.Add(&record.Record{Phase: record.PhaseMeasure, Status: record.StatusComplete})
	if s := none.Summary(stats.Workload{}); s.ConnectRamp != nil {
		t.Errorf("no stream waited, yet connect ramp %+v", *s.ConnectRamp)
	}
}
