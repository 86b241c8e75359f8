package pipeline

import (
	"bytes"
	"fmt"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// failed is a measured stream the server refused.
func failed(seq int) *record.Record {
	r := finished(seq)
	r.Status, r.Complete, r.HTTPStatus = record.StatusFailed, false, 401
	r.Error = &record.Error{Class: "http_4xx", Message: "HTTP 401: Incorrect API key provided"}
	return r
}

// A screen closed with q ends as a headless run of the same streams does:
// exit 3 when every measured stream failed, the class and the server's
// words in the error; 0 when one completed or none ran.
func TestSessionOfFailedStreamsIsExit3(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		recs []*record.Record
		code int
	}{
		"all failed":      {[]*record.Record{failed(0), failed(1)}, ExitCannot},
		"one completed":   {[]*record.Record{failed(0), finished(1)}, ExitOK},
		"none ran":        {nil, ExitOK},
		"warmup complete": {[]*record.Record{warmup(finished(0)), failed(1)}, ExitCannot},
	} {
		p := New(stats.DefaultStall, nil)
		p.KeepRecords()
		for _, r := range c.recs {
			p.Add(r)
		}
		err := p.ReportSession(new(bytes.Buffer), new(bytes.Buffer), Session{Workload: SessionWorkload("test")})
		if exitCode(err) != c.code {
			t.Errorf("%s: exit %d (%v), want %d", name, exitCode(err), err, c.code)
		}
		if c.code == ExitCannot && (err == nil || !strings.Contains(err.Error(), "http_4xx ×") || !strings.Contains(err.Error(), "Incorrect API key provided")) {
			t.Errorf("%s: %v does not say the class and the server's words", name, err)
		}
	}
}

func warmup(r *record.Record) *record.Record {
	r.Phase = record.PhaseWarmup
	return r
}

// Targets side by side end as each alone would: a target none of whose
// streams completed is exit 3 naming it, with the server's words; a race
// where each target completed one is 0 (a race whose every stream was
// refused ended 0).
func TestTargetsOfFailedStreamsAreExit3(t *testing.T) {
	t.Parallel()
	for name, c := range map[string]struct {
		b    *record.Record
		code int
	}{
		"b failed":    {failed(1), ExitCannot},
		"b completed": {finished(1), ExitOK},
	} {
		ts, err := NewTargets([]string{"http://a", "http://b"}, stats.DefaultStall, "", "")
		if err != nil {
			t.Fatal(err)
		}
		ts.Bind("ra", 0)
		ts.Bind("rb", 1)
		a := finished(0)
		a.RunID, c.b.RunID = "ra", "rb"
		ts.Add(a)
		ts.Add(c.b)
		err = ts.Report(new(bytes.Buffer), new(bytes.Buffer), nil, func(int, *record.Record) stats.Workload { return stats.Workload{} })
		if exitCode(err) != c.code {
			t.Errorf("%s: exit %d (%v), want %d", name, exitCode(err), err, c.code)
		}
		if c.code == ExitCannot && !strings.Contains(fmt.Sprint(err), "B http://b: no measured stream completed (1 attempted: http_4xx ×1), most often http_4xx: HTTP 401: Incorrect API key provided") {
			t.Errorf("%s: %v does not name the target, the class and the server's words", name, err)
		}
	}
}
