package report

import (
	"bytes"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Records without the OS's figures (no /proc) make the text report say
// the starved-client check was not available; records with them do not.
func TestTextSaysTheClientCheckWasNotAvailable(t *testing.T) {
	for _, tc := range []struct {
		cpu  *record.ClientCPU
		says bool
	}{{nil, true}, {&record.ClientCPU{WindowMS: 80, RunQueueWaitMS: 0.1}, false}} {
		agg := stats.NewAggregate(stats.DefaultStall)
		agg.Add(&record.Record{Phase: record.PhaseMeasure, Status: record.StatusComplete, DurationMS: 100, ClientCPU: tc.cpu})
		s := agg.Summary(stats.Workload{})
		var b bytes.Buffer
		Text(&b, &s)
		if got := strings.Contains(b.String(), "client    not available: the OS gave no per-process run-queue wait"); got != tc.says {
			t.Errorf("OS figures %+v: text says the check was not available: %v, want %v:\n%s", tc.cpu, got, tc.says, b.String())
		}
	}
}
