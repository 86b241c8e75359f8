package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// A live run's records without the OS's figures (no /proc) make the text
// report say the starved-client check was not available; records with
// them do not, nor a file read back (no runtime figures) or a relay's
// exchanges without them.
func TestTextSaysTheClientCheckWasNotAvailable(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		cpu      *record.ClientCPU
		live     bool
		exchange *record.Exchange
		says     bool
	}{
		{nil, true, nil, true}, {&record.ClientCPU{WindowMS: 80, MaxThreadWaitMS: 0.1}, true, nil, false},
		{nil, false, nil, false}, {nil, true, &record.Exchange{Streamed: true}, false},
	} {
		agg := stats.NewAggregate(stats.DefaultStall)
		if tc.live {
			agg.SetRun(stats.RunStats{SchedLatency: stats.NewDist([]float64{0.1})})
		}
		agg.Add(&record.Record{Phase: record.PhaseMeasure, Status: record.StatusComplete, DurationMS: 100, ClientCPU: tc.cpu, Exchange: tc.exchange})
		s := agg.Summary(stats.Workload{})
		var b bytes.Buffer
		Text(&b, &s)
		if got := strings.Contains(b.String(), "client    not available: the OS gave no per-process run-queue wait"); got != tc.says {
			t.Errorf("OS figures %+v: text says the check was not available: %v, want %v:\n%s", tc.cpu, got, tc.says, b.String())
		}
	}
}
