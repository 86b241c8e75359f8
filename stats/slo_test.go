package stats

import (
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

func TestParseSLO(t *testing.T) {
	s, err := ParseSLO("ttft<500ms, gap.p99<=0.25s,tps_user>20/s,itl<40000us,stalls<1,ttft<1m,e2e<=1m30s,duration<1h,itl<2000000ns")
	if err != nil {
		t.Fatal(err)
	}
	want := []SLOTerm{
		{"ttft<500ms", "ttft", "<", 500},
		{"gap.p99<=0.25s", "gap.p99", "<=", 250},
		{"tps_user>20/s", "tps_user", ">", 20},
		{"itl<40000us", "itl", "<", 40},
		{"stalls<1", "stalls", "<", 1},
		{"ttft<1m", "ttft", "<", 60000},
		{"e2e<=1m30s", "e2e", "<=", 90000},
		{"duration<1h", "duration", "<", 3600000},
		{"itl<2000000ns", "itl", "<", 2},
	}
	if len(s.Terms) != len(want) {
		t.Fatalf("terms %+v, want %+v", s.Terms, want)
	}
	for i := range want {
		if s.Terms[i] != want[i] {
			t.Errorf("term %d = %+v, want %+v", i, s.Terms[i], want[i])
		}
	}
	for expr, msg := range map[string]string{
		"":                "empty SLO",
		"ttft<<5":         "want METRIC OP VALUE",
		"ttft==5ms":       "want METRIC OP VALUE",
		"gap<5ms":         "name a statistic",
		"gap.p42<5ms":     "unknown gap statistic",
		"speed<5":         "unknown per-stream metric",
		"stalls<1ms":      "not a time",
		"ttft<5/s":        "/s applies to tps_user",
		"ttft<500ms,,":    "want METRIC OP VALUE",
		"ttft.p95<500ms":  "unknown per-stream metric",
		"output_tokens>x": "want METRIC OP VALUE",
		"ttft<5parsecs":   `SLO term "ttft<5parsecs": bad value "5parsecs": want a number, a share (5%) or a time in ns, us (µs), ms, s, m, h`,
		"ttft<1e400":      `SLO term "ttft<1e400": bad number "1e400"`,
		"ttft_ms<500ms":   "unknown per-stream metric ttft_ms: the SLO name is ttft ",
		"gap_ms.p99<1s":   "the SLO name is gap.p99",
		"tps_user>5%":     "not a share",
	} {
		if _, err := ParseSLO(expr); err == nil || !strings.Contains(err.Error(), msg) {
			t.Errorf("ParseSLO(%q) error %v, want one saying %q", expr, err, msg)
		}
	}
}

// An SLO term given a JSON key or a gate name is told the name a term
// takes (the statistic dropped but for gap's), and never a gate's name
// no term takes.
func TestSLONameHints(t *testing.T) {
	for expr, hint := range map[string]string{
		"ttft_ms.p95<1s":             "ttft",
		"ttft.p95<1s":                "ttft",
		"metrics.e2e_ms.p99<1s":      "e2e",
		"tps_user.p50>5":             "tps_user",
		"gap_ms.max<1s":              "gap.max",
		"throughput.output_tokens>5": "",
		"headers_ms<1s":              "",
		"gap_ms<1s":                  "",
	} {
		_, err := ParseSLO(expr)
		if err == nil {
			t.Errorf("ParseSLO(%q) took it", expr)
			continue
		}
		got := ""
		if _, after, ok := strings.Cut(err.Error(), "the SLO name is "); ok {
			got, _, _ = strings.Cut(after, " ")
		}
		if got != hint {
			t.Errorf("ParseSLO(%q) hints %q, want %q: %v", expr, got, hint, err)
			continue
		}
		if hint != "" {
			if _, err := ParseSLO(hint + "<1"); err != nil {
				t.Errorf("the hint for %q is refused: %v", expr, err)
			}
		}
	}
}

// sloRecord is a stream with content at the given offsets (ms), ended
// 10 ms after the last, derived as drip derives a real one.
func sloRecord(t *testing.T, status string, at ...float64) *record.Record {
	t.Helper()
	r := &record.Record{V: 1, Phase: record.PhaseMeasure}
	for i, ms := range at {
		r.Frames = append(r.Frames, record.Frame{TMS: ms, Read: i, Kind: record.KindContent, Text: "w "})
	}
	if len(at) > 0 {
		r.DurationMS = at[len(at)-1] + 10
	}
	if status == record.StatusComplete {
		r.Frames = append(r.Frames, record.Frame{TMS: r.DurationMS, Read: len(at), Kind: record.KindEnd})
	} else {
		r.Error = &record.Error{Class: record.ErrReset}
	}
	derive(t, r, DefaultStall)
	if r.Status != status {
		t.Fatalf("built a %s record, want %s", r.Status, status)
	}
	return r
}

func TestSLOMetAndGoodput(t *testing.T) {
	slo, err := ParseSLO("ttft<500ms,gap.p99<250ms")
	if err != nil {
		t.Fatal(err)
	}
	good := sloRecord(t, record.StatusComplete, 200, 300, 400, 500)
	lateStart := sloRecord(t, record.StatusComplete, 600, 700, 800)
	stalled := sloRecord(t, record.StatusComplete, 100, 200, 900)
	failed := sloRecord(t, record.StatusFailed, 100, 150, 200) // fast, but did not finish
	empty := sloRecord(t, record.StatusFailed)                 // no TTFT at all
	for _, tc := range []struct {
		name string
		r    *record.Record
		met  bool
	}{{"good", good, true}, {"late start", lateStart, false}, {"stalled", stalled, false}, {"failed", failed, false}, {"no content", empty, false}} {
		if got := slo.Met(tc.r); got != tc.met {
			t.Errorf("%s (ttft %v, gaps %v): met %v, want %v", tc.name, tc.r.TTFTMS, tc.r.Gaps(), got, tc.met)
		}
	}
	a := NewAggregate(DefaultStall)
	a.SLO = slo
	for _, r := range []*record.Record{good, lateStart, stalled, failed, empty} {
		a.Add(r)
	}
	a.Add(&record.Record{Phase: record.PhaseWarmup, Status: record.StatusComplete}) // never counted
	a.CountNotAdmitted(3)                                                           // counted against goodput
	s := a.Summary(Workload{})
	g := s.Goodput
	if g == nil || g.Met != 1 || g.Of != 8 || g.Pct == nil || *g.Pct != 12.5 || g.SLO != "ttft<500ms,gap.p99<250ms" {
		t.Fatalf("goodput %+v, want 1 of 8 (12.5%%)", g)
	}
	gate, err := ParseGate("goodput < 50%")
	if err != nil {
		t.Fatal(err)
	}
	if r := gate.Eval(&s); !r.Tripped || r.Value == nil || *r.Value != 12.5 {
		t.Errorf("gate %+v, want tripped at 12.5", r)
	}
	if r := gate.Eval(&Summary{}); !r.Tripped || !strings.Contains(r.Message, "--slo") {
		t.Errorf("goodput gate without an SLO: %+v, want tripped, naming --slo", r)
	}
	if s := NewAggregate(DefaultStall).Summary(Workload{}); s.Goodput != nil {
		t.Errorf("goodput without an SLO: %+v, want none", s.Goodput)
	}
}
