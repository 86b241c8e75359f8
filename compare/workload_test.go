package compare

import (
	"fmt"
	"slices"
	"testing"

	"github.com/driplab/drip/record"
)

func recs(n int, f func(i int, r *record.Record)) []*record.Record {
	out := make([]*record.Record, n)
	for i := range out {
		r := &record.Record{Phase: record.PhaseMeasure, PromptID: "p0", Target: "http://h/v1/chat/completions",
			Format: "openai-chat", Model: "m", StallMS: 250,
			Workload: &record.RecordWorkload{Concurrency: 1, Version: "v1.0.0"}}
		f(i, r)
		out[i] = r
	}
	return out
}

func TestWorkloadDifferences(t *testing.T) {
	t.Parallel()
	same := func(int, *record.Record) {}
	for _, c := range []struct {
		name string
		run  func(i int, r *record.Record)
		want []Difference
	}{
		{"identical", same, nil},
		{"concurrency and version", func(_ int, r *record.Record) {
			r.Workload = &record.RecordWorkload{Concurrency: 8, Version: "v1.1.0"}
		}, []Difference{{setLoad, []string{"closed loop, 1 in flight", "closed loop, 8 in flight"}}, {setVersion, []string{"v1.0.0", "v1.1.0"}}}},
		{"open loop", func(_ int, r *record.Record) {
			r.Workload = &record.RecordWorkload{Rate: 2.5, Version: "v1.0.0"}
		}, []Difference{{setLoad, []string{"closed loop, 1 in flight", "open loop, 2.5/s"}}}},
		{"max tokens", func(_ int, r *record.Record) { r.Workload.MaxTokens = 256 },
			[]Difference{{setMaxTokens, []string{"server default", "256"}}}},
		{"written before the workload stamp", func(_ int, r *record.Record) { r.Workload = nil }, []Difference{
			{setMaxTokens, []string{"server default", notRecorded}}, {setLoad, []string{"closed loop, 1 in flight", notRecorded}},
			{setVersion, []string{"v1.0.0", notRecorded}},
		}},
		{"an empty version", func(_ int, r *record.Record) { r.Workload.Version = "" },
			[]Difference{{setVersion, []string{"v1.0.0", notRecorded}}}},
		{"warmup and a stall threshold", func(i int, r *record.Record) {
			if i == 0 {
				r.Phase = record.PhaseWarmup
			}
			r.StallMS = 500
		}, []Difference{{setWarmup, []string{"0", "1"}}, {setMeasured, []string{"3", "2"}}, {setStall, []string{"250 ms", "500 ms"}}}},
		{"target, format and model", func(_ int, r *record.Record) {
			r.Target, r.Format, r.Model = "http://other/v1/messages", "anthropic", "m2"
		}, []Difference{{setTarget, []string{"http://h/v1/chat/completions", "http://other/v1/messages"}},
			{setFormat, []string{"openai-chat", "anthropic"}}, {setModel, []string{"m", "m2"}}}},
		{"many prompts", func(i int, r *record.Record) { r.PromptID = fmt.Sprintf("q%d", i) },
			[]Difference{{setPrompts, []string{"1: p0", "3: q0, q1, q2 (not in baseline: q0, q1, q2; missing: p0)"}}}},
	} {
		base := newRun(Input{Records: recs(3, same)})
		run := newRun(Input{Records: recs(3, c.run)})
		got := differences([]Run{base, run})
		if !slices.EqualFunc(got, c.want, func(a, b Difference) bool { return a.Setting == b.Setting && slices.Equal(a.Values, b.Values) }) {
			t.Errorf("%s: %q, want %q", c.name, got, c.want)
		}
	}
	mixed := recs(3, func(i int, r *record.Record) {
		if i == 0 {
			r.Workload.Version = ""
		} else if i == 1 {
			r.Workload = nil
		}
	})
	if got := WorkloadOf(mixed).Version; got != "v1.0.0" {
		t.Errorf("version of records with, without and with an empty version: %q, want %q", got, "v1.0.0")
	}
	if got := abbreviate([]string{"a", "b", "c", "d", "e", "f"}); got != "a, b, c, d, … 2 more" {
		t.Errorf("abbreviate: %q", got)
	}
}

// TestWhileMeasuring: runs still being measured are warned of a real
// workload difference, never of their progress (measured streams, prompt
// ids so far), and of nothing while a run has no record.
func TestWhileMeasuring(t *testing.T) {
	t.Parallel()
	run := func(n int, model string) Input {
		var recs []*record.Record
		for i := range n {
			recs = append(recs, &record.Record{V: 1, Seq: i, Phase: record.PhaseMeasure, PromptID: fmt.Sprintf("p%d", i), Model: model, Status: record.StatusComplete})
		}
		return Input{Label: model, Records: recs}
	}
	for _, tc := range []struct {
		name string
		in   []Input
		want []string
	}{
		{"B has none yet", []Input{run(3, "m"), run(0, "m")}, nil},
		{"B behind", []Input{run(3, "m"), run(1, "m")}, nil},
		{"B behind on another model", []Input{run(3, "m"), run(1, "other")}, []string{setModel}},
	} {
		c, err := New(tc.in, Options{})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		WhileMeasuring(c)
		var got []string
		for _, d := range c.Workload {
			got = append(got, d.Setting)
		}
		if !slices.Equal(got, tc.want) {
			t.Errorf("%s: banner %q, want %q", tc.name, got, tc.want)
		}
	}
}
