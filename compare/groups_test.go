package compare_test

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// synth is a derived record: content frames every gap ms from ttft ms,
// with jitter j·(seq mod 3) added to both so runs have some spread.
func synth(t *testing.T, host string, seq int, ttft, gap, jitter float64, labels map[string]string) *record.Record {
	t.Helper()
	at := ttft + jitter*float64(seq%3)
	r := &record.Record{RunID: "run-" + host, Seq: seq, Phase: record.PhaseMeasure, PromptID: "p1", Target: "http://x/v1/chat/completions",
		Format: "openai-chat", Host: host, Labels: labels, StallMS: stats.DefaultStall, Workload: &record.RecordWorkload{Concurrency: 1}}
	for i := range 10 {
		r.Frames = append(r.Frames, record.Frame{TMS: at, Read: i, Bytes: 10, Kind: adapters.KindContent, Text: " w"})
		at += gap + jitter*float64((seq+i)%3)
	}
	r.Frames = append(r.Frames, record.Frame{TMS: at, Read: 10, Kind: adapters.KindEnd})
	r.DurationMS = at + 1
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	return r
}

func hostRecords(t *testing.T, host string, n int, ttft, gap float64, labels map[string]string) []*record.Record {
	var recs []*record.Record
	for i := range n {
		recs = append(recs, synth(t, host, i, ttft, gap, 1, labels))
	}
	return recs
}

func TestGroupByHostReadsTheClocks(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name             string
		bTTFT, bGap      float64
		ttft, gap        string
		verdictStartWith string
	}{
		{"slower transport", 200, 40, "held", "moved", "transport:"},
		{"queue", 400, 25, "moved", "held", "queue:"},
		{"both", 400, 40, "moved", "moved", "both moved:"},
		{"same", 200, 25, "held", "held", "no clock moved"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			all := append(hostRecords(t, "b", 12, tc.bTTFT, tc.bGap, nil), hostRecords(t, "a", 12, 200, 25, nil)...)
			groups, err := compare.GroupBy([]compare.Input{{Source: "all.jsonl", Records: all}}, "host")
			if err != nil {
				t.Fatal(err)
			}
			if len(groups) != 2 || groups[0].Label != "host=a" || groups[1].Label != "host=b" || len(groups[0].Records) != 12 {
				t.Fatalf("groups: %d, %v", len(groups), labelsOf(groups))
			}
			c, err := compare.New(groups, compare.Options{})
			if err != nil {
				t.Fatal(err)
			}
			rd := c.Readings[0]
			got := map[string]string{}
			for _, m := range rd.Clocks {
				got[m.Clock] = word(m.Moved)
			}
			if got["ttft"] != tc.ttft || got["gap"] != tc.gap || !strings.HasPrefix(rd.Verdict, tc.verdictStartWith) {
				t.Errorf("ttft %s gap %s, verdict %q; want ttft %s gap %s, verdict %s…\n%+v",
					got["ttft"], got["gap"], rd.Verdict, tc.ttft, tc.gap, tc.verdictStartWith, rd.Clocks)
			}
		})
	}
}

func word(b *bool) string {
	switch {
	case b == nil:
		return "unknown"
	case *b:
		return "moved"
	}
	return "held"
}

func labelsOf(in []compare.Input) []string {
	var out []string
	for _, g := range in {
		out = append(out, fmt.Sprintf("%s(%d)", g.Label, len(g.Records)))
	}
	return out
}

func TestGroupByAnyField(t *testing.T) {
	t.Parallel()
	var recs []*record.Record
	for i, level := range []string{"8", "2", "16", "2"} {
		r := synth(t, "h", i, 200, 25, 0, map[string]string{"level": level, "region": "eu"})
		r.Workload.Concurrency = i + 1
		recs = append(recs, r)
	}
	recs[3].Labels = nil
	in := []compare.Input{{Source: "f", Records: recs}}
	for _, tc := range []struct {
		key  string
		want []string
	}{
		// Numbers sort as numbers; a record without the label goes last.
		{"level", []string{"level=2(1)", "level=8(1)", "level=16(1)", "level=(not recorded)(1)"}},
		{"labels.level", []string{"labels.level=2(1)", "labels.level=8(1)", "labels.level=16(1)", "labels.level=(not recorded)(1)"}},
		{"workload.concurrency", []string{"workload.concurrency=1(1)", "workload.concurrency=2(1)", "workload.concurrency=3(1)", "workload.concurrency=4(1)"}},
		{"seq", []string{"seq=0(1)", "seq=1(1)", "seq=2(1)", "seq=3(1)"}},
	} {
		g, err := compare.GroupBy(in, tc.key)
		if err != nil {
			t.Fatalf("%s: %v", tc.key, err)
		}
		if got := labelsOf(g); !slices.Equal(got, tc.want) {
			t.Errorf("--by %s: %v, want %v", tc.key, got, tc.want)
		}
	}
	for key, want := range map[string]string{
		"nope":     "no record has that field",
		"region":   "every record has the same value",
		"labels":   "not a single value",
		"workload": "not a single value",
	} {
		recs[3].Labels = map[string]string{"region": "eu"}
		if _, err := compare.GroupBy(in, key); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("--by %s: %v, want %q", key, err, want)
		}
	}
}

// Runs are named by their files, by their paths where two share a name.
func TestDefaultLabels(t *testing.T) {
	t.Parallel()
	got := compare.DefaultLabels([]string{"a/run.jsonl", "b/run.jsonl", "c/main.jsonl"})
	if want := []string{"a/run.jsonl", "b/run.jsonl", "main.jsonl"}; !slices.Equal(got, want) {
		t.Errorf("DefaultLabels = %q, want %q", got, want)
	}
}

// Grouped by level, a comparison holds the sweep the records ran, and its
// text and Markdown print the sweep's table under the comparison's. JSON
// keeps to the comparison, and any other grouping has no levels.
func TestNewByLevelKeepsTheSweep(t *testing.T) {
	t.Parallel()
	var all []*record.Record
	for i, r := range append(hostRecords(t, "a", 8, 200, 25, nil), hostRecords(t, "a", 8, 400, 25, nil)...) {
		r.Level = new(float64(1 + i/8))
		all = append(all, r)
	}
	in := []compare.Input{{Label: "sweep.jsonl", Source: "sweep.jsonl", Records: all}}
	c, err := compare.New(in, compare.Options{By: "level"})
	if err != nil {
		t.Fatal(err)
	}
	if c.Levels == nil || len(c.Levels.Levels) != 2 || c.Levels.Kind != sweep.KindConcurrency {
		t.Fatalf("levels %+v, want concurrency 1 and 2", c.Levels)
	}
	for _, tc := range []struct {
		form compare.Format
		want string
	}{
		{compare.FormatText, "\nsweep · concurrency 1,2\n"},
		{compare.FormatMarkdown, "\n### drip sweep: concurrency 1,2\n"},
	} {
		var b strings.Builder
		if err := compare.Write(&b, c, tc.form); err != nil {
			t.Fatal(err)
		}
		if !strings.Contains(b.String(), tc.want) {
			t.Errorf("form %d lacks %q:\n%s", tc.form, tc.want, b.String())
		}
	}
	var b strings.Builder
	if err := compare.Write(&b, c, compare.FormatJSON); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(b.String(), "knee") {
		t.Errorf("the JSON holds the sweep:\n%s", b.String())
	}
	byHost, err := compare.New([]compare.Input{in[0], {Records: hostRecords(t, "b", 8, 200, 25, nil)}}, compare.Options{By: "host"})
	if err != nil || byHost.Levels != nil {
		t.Errorf("by host: levels %+v, error %v; want none", byHost.Levels, err)
	}
}
