package report

import (
	"bytes"
	"encoding/csv"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

func testRecord(t *testing.T, seq int, failed bool) *record.Record {
	t.Helper()
	r := &record.Record{Seq: seq, Phase: record.PhaseMeasure, DurationMS: 900, Target: "http://x/v1/chat/completions\x1b]0;t\x07", Format: "openai-chat"}
	if failed {
		r.Error = &record.Error{Class: record.ErrHTTP429, Message: "slow down"}
	} else {
		for i, at := range []float64{200, 300, 800} {
			r.Frames = append(r.Frames, record.Frame{TMS: at, Read: i, Kind: adapters.KindContent, Text: "w"})
		}
		r.Frames = append(r.Frames, record.Frame{TMS: 850, Read: 3, Kind: adapters.KindEnd})
	}
	if err := stats.Derive(r, 250); err != nil {
		t.Fatal(err)
	}
	return r
}

// The text report shows n beside every distribution, — for what is
// undefined, the accounting by class, and no control sequence from a
// server-supplied string.
func TestTextReport(t *testing.T) {
	t.Parallel()
	a := stats.NewAggregate(250)
	a.Add(testRecord(t, 0, false))
	a.Add(testRecord(t, 1, true))
	s := a.Summary(stats.Workload{Target: "http://x/v1\x1b]0;pwned\x07", Format: "openai-chat"})
	g, _ := stats.ParseGate("failed > 0")
	s.Gates = append(s.Gates, g.Eval(&s))
	// The widest lines a run can bring: held time, several failure
	// classes with large counts, input tokens, and per-prompt ids wider
	// than their column in bytes or in runes.
	f := func(v float64) *float64 { return &v }
	big := stats.Dist{N: 12000, Min: f(10000), P50: f(12345), P90: f(23456), P95: f(34567), P99: f(45678), Max: f(56789), Mean: f(23456)}
	s.Metrics["held_ms"], s.Metrics["input_tokens"] = big, big
	s.Streams.Attempted, s.Streams.Admitted, s.Streams.Completed, s.Streams.Failed = 12000, 12000, 11940, 60
	s.Streams.FailedBy = map[string]int{"http_429": 30, "timeout_idle": 20, "reset": 10}
	s.PerPrompt = []stats.PromptStats{{ID: "short", Streams: 3}, {ID: "a-sixteen-id-xyz", Streams: 4}, {ID: "日本語の長いプロンプト", Streams: 5}}
	var b bytes.Buffer
	Text(&b, &s)
	out := b.String()
	for _, want := range []string{
		"11940 completed · 60 failed",
		"(http_429 30, timeout_idle 20, reset 10)",
		"  held = TTFT − the server's own time",
		"prompts   input tokens from the server's usage: p50 12345",
		"\nshort              3 ",
		"\na-sixteen-i…       4 ",
		"\n日本語の長…        5 ",
		"ttft               1  200 ms",
		"ttfo               1",
		"tokens             1       3       3",
		"stalls    1 (1 mid-sentence) in 1 stream · longest 500 ms",
		"FAIL failed > 0",
	} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w > Width && !strings.HasPrefix(l, "drip · ") {
			t.Errorf("line %d is %d columns wide, over %d: %q", i+1, w, Width, l)
		}
	}
	if strings.ContainsRune(out, '\x1b') || strings.ContainsRune(out, '\x07') {
		t.Errorf("report carries control characters:\n%q", out)
	}
}

// csvOf writes the records as CSV and reads the rows back, header first.
func csvOf(t *testing.T, recs ...*record.Record) [][]string {
	t.Helper()
	var b bytes.Buffer
	c, err := NewCSV(&b)
	if err != nil {
		t.Fatal(err)
	}
	for _, r := range recs {
		if err := c.Write(r); err != nil {
			t.Fatal(err)
		}
	}
	rows, err := csv.NewReader(&b).ReadAll()
	if err != nil || len(rows) != len(recs)+1 {
		t.Fatalf("rows %d err %v", len(rows), err)
	}
	return rows
}

func TestCSVRows(t *testing.T) {
	t.Parallel()
	var recs []*record.Record
	for i, failed := range []bool{false, true} {
		r := testRecord(t, i, failed)
		if !failed {
			intended := 1499.25
			r.RunOffsetMS, r.IntendedStartMS = 1500, &intended
			in := 37
			r.Model, r.Target, r.StartUnixNS, r.InputTokens = "llama3.2", "http://127.0.0.1:8000/v1/chat/completions", 1764583200123456789, &in
		}
		recs = append(recs, r)
	}
	rows := csvOf(t, recs...)
	col := map[string]int{}
	for i, name := range rows[0] {
		col[name] = i
	}
	if rows[1][col["ttft_ms"]] != "200.000" || rows[1][col["run_offset_ms"]] != "1500.000" || rows[1][col["intended_start_ms"]] != "1499.250" || rows[1][col["stalls"]] != "1" || rows[1][col["status"]] != "complete" {
		t.Errorf("complete row %v", rows[1])
	}
	// Undefined is an empty cell, never 0: these records are no open loop's.
	if rows[2][col["ttft_ms"]] != "" || rows[2][col["error_class"]] != "http_429" || rows[2][col["intended_start_ms"]] != "" {
		t.Errorf("failed row %v", rows[2])
	}
	// Content at 200, 300 and 800 ms: gaps 100 and 500, two tokens in
	// the 600 ms after the first content.
	for name, want := range map[string][2]string{
		"gap_p50_ms": {"300.000", ""}, "gap_p95_ms": {"480.000", ""}, "gap_p99_ms": {"496.000", ""}, "gap_max_ms": {"500.000", ""},
		"reads": {"4", "0"}, "post_first_content_tps": {"3.333", ""}, "content_frames": {"3", "0"},
		"model": {"llama3.2", ""}, "target": {"http://127.0.0.1:8000/v1/chat/completions", "http://x/v1/chat/completions"},
		"start_time": {"2025-12-01T10:00:00.123456789Z", ""}, "input_tokens": {"37", ""},
	} {
		i, ok := col[name]
		if !ok {
			t.Errorf("no column %s", name)
			continue
		}
		if rows[1][i] != want[0] || rows[2][i] != want[1] {
			t.Errorf("%s: %q and %q, want %q and %q", name, rows[1][i], rows[2][i], want[0], want[1])
		}
	}
}

// The text report has a row for every registry metric it shows and the
// CSV a column for every one with a per-stream figure; the four added
// through the registry alone among them, with their figures.
func TestRegistryInTextAndCSV(t *testing.T) {
	t.Parallel()
	r := testRecord(t, 0, false)
	r.HeadersMS, r.FirstEventMS = new(12.5), new(150.0)
	a := stats.NewAggregate(250)
	a.Add(r)
	s := a.Summary(stats.Workload{})
	var text bytes.Buffer
	Text(&text, &s)
	rows := csvOf(t, r)
	cells := map[string]string{}
	for i, name := range rows[0] {
		cells[name] = rows[1][i]
	}
	for _, m := range stats.Registry {
		if _, ok := cells[m.JSON]; ok != (m.Out&stats.InCSV != 0) {
			t.Errorf("CSV column %s present %v, registry says %v", m.JSON, ok, !ok)
		}
		if m.Out&stats.InText != 0 && !strings.Contains(text.String(), "\n"+m.Label+" ") {
			t.Errorf("report lacks the %q row:\n%s", m.Label, text.String())
		}
	}
	// Content at 200, 300 and 800 ms, one token a frame.
	for name, want := range map[string]string{"headers_ms": "12.500", "first_event_ms": "150.000", "tt2t_ms": "300.000", "stream_ms": "600.000"} {
		if cells[name] != want {
			t.Errorf("CSV %s = %q, want %q", name, cells[name], want)
		}
	}
	for _, want := range []string{"headers            1   13 ms", "first event        1  150 ms", "tt2t               1  300 ms", "stream             1  600 ms"} {
		if !strings.Contains(text.String(), want) {
			t.Errorf("report lacks %q:\n%s", want, text.String())
		}
	}
	if got := rows[0][len(rows[0])-3:]; !slices.Equal(got, []string{"first_event_ms", "tt2t_ms", "stream_ms"}) {
		t.Errorf("the new columns come last, after the old ones: %v", got)
	}
}

// A report with nothing to count says so in words: no stall is "longest
// none", not "— ms", and a hint's long evidence is wrapped to the width.
func TestTextReportWithoutStallsAndWithAHint(t *testing.T) {
	t.Parallel()
	a := stats.NewAggregate(250)
	for i := range 3 {
		r := &record.Record{Seq: i, Phase: record.PhaseMeasure, DurationMS: 900, Target: "http://x/v1/chat/completions", Format: "openai-chat", HTTPStatus: 200,
			Frames: []record.Frame{{TMS: 100, Kind: adapters.KindRole}, {TMS: 140, Read: 1, Kind: adapters.KindEnd}}}
		if err := stats.Derive(r, 250); err != nil {
			t.Fatal(err)
		}
		a.Add(r)
	}
	s := a.Summary(stats.Workload{Target: "http://x/v1/chat/completions", Format: "openai-chat"})
	s.Diagnosis = stats.Diagnose(&s)
	if len(s.Diagnosis) == 0 {
		t.Fatalf("no hint for 2xx streams without content: %+v", s.Signals)
	}
	var b bytes.Buffer
	Text(&b, &s)
	out := b.String()
	for _, want := range []string{"in 0 streams · longest none · threshold", "hint      zero-content: HTTP success with no content"} {
		if !strings.Contains(out, want) {
			t.Errorf("report lacks %q:\n%s", want, out)
		}
	}
	for i, l := range strings.Split(out, "\n") {
		if w := ansi.StringWidth(l); w > Width && !strings.HasPrefix(l, "drip · ") {
			t.Errorf("line %d is %d columns wide, over %d: %q", i+1, w, Width, l)
		}
	}
}

// The warmup line says the count and the rule once: the rule already says
// the streams are excluded ("2 streams, excluded (1 warmup stream per
// prompt …, excluded from every figure)" said it twice).
func TestWarmupLineSaysItOnce(t *testing.T) {
	t.Parallel()
	wl := &stats.Workload{Warmup: 1, WarmupRule: "1 warmup stream per prompt before measuring, excluded from every figure"}
	if got, want := warmupLine(2, wl), "2 streams: 1 warmup stream per prompt before measuring, excluded from every figure"; got != want {
		t.Errorf("warmup line %q, want %q", got, want)
	}
	if got := warmupLine(0, &stats.Workload{}); got != "none" {
		t.Errorf("no warmup: %q", got)
	}
}

// Records of several runs (merged hosts) have their windows laid over each
// other from each run's own start: the summary counts the runs, its
// definition and the text say so; one run says nothing of it.
func TestThroughputSaysWhenItLaysRunsOverEachOther(t *testing.T) {
	t.Parallel()
	for _, runIDs := range [][]string{{"r1", "r1"}, {"r1", "r2"}} {
		a := stats.NewAggregate(250)
		for i, id := range runIDs {
			r := &record.Record{RunID: id, Host: id, Seq: i, Phase: record.PhaseMeasure, Status: record.StatusComplete, Complete: true, DurationMS: 400,
				Target: "http://x/v1/chat/completions", Format: "openai-chat", HTTPStatus: 200, Frames: []record.Frame{
					{TMS: 100, Read: 1, Kind: adapters.KindContent, Text: "a"}, {TMS: 200, Read: 2, Kind: adapters.KindContent, Text: "b"},
					{TMS: 300, Read: 3, Kind: adapters.KindContent, Text: "c"}, {TMS: 310, Read: 4, Kind: adapters.KindEnd}}}
			if err := stats.Derive(r, 250); err != nil {
				t.Fatal(err)
			}
			a.Add(r)
		}
		s := a.Summary(stats.Workload{Target: "http://x/v1/chat/completions", Format: "openai-chat"})
		var b bytes.Buffer
		Text(&b, &s)
		words := strings.Join(strings.Fields(b.String()), " ")
		overlaid := runIDs[0] != runIDs[1]
		if wantRuns := map[bool]int{true: 2}[overlaid]; s.Throughput.Runs != wantRuns || s.Throughput.TokensPerS == nil {
			t.Errorf("runs %v: throughput.runs %d (want %d), tokens/s %v", runIDs, s.Throughput.Runs, wantRuns, s.Throughput.TokensPerS)
		}
		if overlaid != strings.Contains(s.Throughput.Definition, stats.OverlaidDefinition) || overlaid != strings.Contains(words, "the window lays 2 runs over each other") {
			t.Errorf("runs %v: definition %q, text:\n%s", runIDs, s.Throughput.Definition, b.String())
		}
	}
}
