package compare_test

import (
	"bytes"
	"context"
	"fmt"
	"math"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// scenarioServer serves the fixture scenario named in the X-Scenario
// header, so two runs can differ in the system's behaviour while their
// records show the same target, model and format: as when a proxy changes
// between two runs against the same endpoint.
// It serves on an in-memory network; call it inside a synctest bubble.
func scenarioServer() *memnet.Server {
	fs := fixtures.NewServer()
	return memnet.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		q := r.URL.Query()
		q.Set("scenario", r.Header.Get("X-Scenario"))
		r.URL.RawQuery = q.Encode()
		fs.ServeHTTP(w, r)
	}))
}

// recordScenario runs a scenario through the probe, writes the records as drip run
// --out does, and reads them back as drip compare does.
func recordScenario(t *testing.T, srv *memnet.Server, scenario, promptID string, runs int) []*record.Record {
	t.Helper()
	u, f, err := probe.ResolveURL(srv.URL, "openai-chat")
	if err != nil {
		t.Fatal(err)
	}
	tgt := probe.Target{URL: u, Format: f, Request: adapters.Request{Model: "m", Prompt: "hi"}, Header: http.Header{"X-Scenario": {scenario}}}
	path := filepath.Join(t.TempDir(), scenario+"-"+promptID+".jsonl")
	w, err := record.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	wl := &record.RecordWorkload{Concurrency: 1, Version: "test"}
	plan := probe.Plan{Target: tgt, Options: probe.Options{StallMS: stats.DefaultStall, Dial: srv.Dial}, Runs: runs, PromptID: promptID}
	probe.Run(context.Background(), plan, func(r *record.Record) {
		r.Workload = wl
		if err := w.Write(r); err != nil {
			t.Error(err)
		}
	}, nil)
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	file, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer file.Close()
	recs, skipped, err := record.ReadAll(file, stats.Rederive)
	if err != nil || len(skipped) > 0 || len(recs) != runs {
		t.Fatalf("reading %s back: %d records, skipped %v, %v", path, len(recs), skipped, err)
	}
	return recs
}

// recorded are three runs against one fixture server: steady and stalling
// streams for prompt p0, and stalling streams for prompt p1.
var recorded struct {
	once                   sync.Once
	steady, stall, stallP1 []*record.Record
}

func recordedRuns(t *testing.T) (steady, stall, stallP1 []*record.Record) {
	t.Helper()
	recorded.once.Do(func() {
		// On synctest's clock the streams take no time and their figures
		// are the schedule's.
		synctest.Test(t, func(t *testing.T) {
			srv := scenarioServer()
			defer srv.Close()
			var wg sync.WaitGroup
			wg.Go(func() { recorded.steady = recordScenario(t, srv, "steady", "p0", 3) })
			wg.Go(func() { recorded.stall = recordScenario(t, srv, "mid-sentence-stall", "p0", 3) })
			wg.Go(func() { recorded.stallP1 = recordScenario(t, srv, "mid-sentence-stall", "p1", 3) })
			wg.Wait()
		})
	})
	if recorded.stallP1 == nil {
		t.Fatal("recording the runs failed")
	}
	return recorded.steady, recorded.stall, recorded.stallP1
}

func newComparison(t *testing.T, runs ...[]*record.Record) *compare.Comparison {
	t.Helper()
	var in []compare.Input
	for i, recs := range runs {
		in = append(in, compare.Input{Label: compare.Letter(i), Records: recs})
	}
	c, err := compare.New(in, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func findRow(t *testing.T, c *compare.Comparison, key string) compare.Row {
	t.Helper()
	for _, s := range c.Sections {
		for _, r := range s.Rows {
			if r.Key == key {
				return r
			}
		}
	}
	t.Fatalf("no row %q", key)
	return compare.Row{}
}

// percentile is numpy's default percentile, written out again so the
// comparison is checked against an independent computation.
func percentile(samples []float64, p float64) float64 {
	s := slices.Sorted(slices.Values(samples))
	pos := p / 100 * float64(len(s)-1)
	i := int(pos)
	if i+1 >= len(s) {
		return s[len(s)-1]
	}
	return s[i] + (s[i+1]-s[i])*(pos-float64(i))
}

// raw recomputes figures straight from the frames of the records: content
// frame times, the end marker and the error, nothing derived.
type raw struct {
	ttft, gap, e2e                         []float64
	completed, stalls, midSentence, tokens int
}

func rawFigures(recs []*record.Record) raw {
	var out raw
	for _, r := range recs {
		var content []record.Frame
		end := false
		usage := -1
		for _, f := range r.Frames {
			switch f.Kind {
			case adapters.KindContent:
				content = append(content, f)
			case adapters.KindEnd:
				end = true
			}
			if f.Usage != nil {
				usage = *f.Usage
			}
		}
		if len(content) > 0 {
			out.ttft = append(out.ttft, content[0].TMS)
		}
		text := ""
		for i := 1; i < len(content); i++ {
			text += content[i-1].Text
			g := content[i].TMS - content[i-1].TMS
			out.gap = append(out.gap, g)
			if g >= stats.DefaultStall {
				out.stalls++
				if last := text[len(text)-1:]; !slices.Contains([]string{".", "!", "?", ":", ";", "\n"}, last) {
					out.midSentence++
				}
			}
		}
		if end && r.Error == nil && len(content) > 0 {
			out.completed++
			out.e2e = append(out.e2e, content[len(content)-1].TMS)
			out.tokens += usage
		}
	}
	return out
}

func TestFiguresEqualRecomputedFromRawRecords(t *testing.T) {
	t.Parallel()
	steady, stall, _ := recordedRuns(t)
	c := newComparison(t, steady, stall)
	for i, recs := range [][]*record.Record{steady, stall} {
		want := rawFigures(recs)
		for _, m := range []struct {
			name    string
			samples []float64
		}{{"ttft", want.ttft}, {"gap", want.gap}, {"e2e", want.e2e}} {
			for _, st := range []struct {
				name string
				p    float64
			}{{"p50", 50}, {"p95", 95}, {"p99", 99}, {"max", 100}} {
				row := findRow(t, c, m.name+"."+st.name)
				got, exp := row.Values[i], percentile(m.samples, st.p)
				if got == nil || math.Abs(*got-exp) > 1e-9 {
					t.Errorf("run %d %s.%s = %v, recomputed %v", i, m.name, st.name, got, exp)
				}
			}
		}
		for key, exp := range map[string]int{
			"completed": want.completed, "stalls": want.stalls, "stalls.mid_sentence": want.midSentence, "output_tokens": want.tokens,
		} {
			if got := findRow(t, c, key).Values[i]; got == nil || *got != float64(exp) {
				t.Errorf("run %d %s = %v, recomputed %d", i, key, got, exp)
			}
		}
		for _, s := range c.Sections {
			if s.Key == "ttft" && s.N[i] != len(want.ttft) || s.Key == "gap" && s.N[i] != len(want.gap) {
				t.Errorf("run %d %s n = %d", i, s.Key, s.N[i])
			}
		}
	}
	// The stall fixture stalls mid-sentence in every stream.
	if got := findRow(t, c, "stalls.mid_sentence").Values[1]; *got < 3 {
		t.Errorf("stall run: %v mid-sentence stalls, want one per stream", *got)
	}
}

// Direction and marks are checked on runs drip recorded (testdata): live
// timings on a loaded machine can make a steady run stall too.
func TestDeltasDirectionAndMarks(t *testing.T) {
	t.Parallel()
	worse, err := compare.New(load(t, "steady.jsonl", "stall.jsonl"), compare.Options{}) // the system got worse
	if err != nil {
		t.Fatal(err)
	}
	better, err := compare.New(load(t, "stall.jsonl", "steady.jsonl"), compare.Options{}) // and back again
	if err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		key  string
		sign float64 // of the change from steady to stall
	}{
		// The stalls add a second to every stream and slow the pace.
		{"e2e.p50", +1}, {"e2e.max", +1}, {"itl.p50", +1}, {"gap.p99", +1},
		{"throughput", -1}, {"tps_user.p50", -1},
	} {
		d := findRow(t, worse, c.key).Deltas[1]
		if d.Abs == nil || math.Signbit(*d.Abs) != math.Signbit(c.sign) || !d.Worse {
			t.Errorf("steady → stall %s: %+v, want a change of sign %v marked worse", c.key, d, c.sign)
		}
		d = findRow(t, better, c.key).Deltas[1]
		if d.Abs == nil || math.Signbit(*d.Abs) == math.Signbit(c.sign) || d.Worse {
			t.Errorf("stall → steady %s: %+v, want the opposite change, not marked", c.key, d)
		}
	}
	// The stalls are in every stream: far beyond run-to-run noise.
	d := findRow(t, worse, "e2e.p50").Deltas[1]
	if d.CI == nil || d.WithinNoise || d.CI.Lo <= 0 {
		t.Errorf("e2e.p50 steady → stall: interval %+v, want one above 0", d.CI)
	}
	// stats.Neutral rows are never marked, whatever the change.
	if d := findRow(t, worse, "output_tokens").Deltas[1]; d.Worse || *d.Pct < 10 {
		t.Errorf("output tokens %+v: a neutral row changed by more than 10%% and must not be marked", d)
	}
}

func TestWorkloadBanner(t *testing.T) {
	t.Parallel()
	steady, stall, stallP1 := recordedRuns(t)
	if c := newComparison(t, steady, stall); len(c.Workload) != 0 {
		t.Errorf("same target, model, format and prompts: banner %+v, want none", c.Workload)
	}
	c := newComparison(t, steady, stallP1)
	if len(c.Workload) != 1 || c.Workload[0].Setting != "prompt ids" {
		t.Fatalf("prompts p0 and p1: banner %+v, want the prompt ids alone", c.Workload)
	}
	if got, want := c.Workload[0].Values, []string{"1: p0", "1: p1 (not in baseline: p1; missing: p0)"}; !slices.Equal(got, want) {
		t.Errorf("prompt difference %q, want %q", got, want)
	}
}

func TestPerPromptWhenPromptsMatch(t *testing.T) {
	t.Parallel()
	steady, stall, stallP1 := recordedRuns(t)
	if c := newComparison(t, steady, stall); c.Prompts != nil {
		t.Errorf("one prompt id: per-prompt view %+v, want none", c.Prompts)
	}
	mixed := slices.Concat(steady, stallP1) // p0 steady, p1 stalling
	c := newComparison(t, mixed, slices.Concat(stall, stallP1))
	if len(c.Prompts) != 2 || c.Prompts[0].ID != "p0" || c.Prompts[1].ID != "p1" {
		t.Fatalf("prompts %+v, want p0 and p1", c.Prompts)
	}
	// Prompt p0 is steady against stall: its figures are those of
	// comparing the two runs alone.
	alone := newComparison(t, steady, stall)
	for _, s := range c.Prompts[0].Sections {
		for _, r := range s.Rows {
			want := findRow(t, alone, r.Key)
			for i := range r.Values {
				if !sameValue(r.Values[i], want.Values[i]) {
					t.Errorf("p0 %s run %d = %v, want %v", r.Key, i, r.Values[i], want.Values[i])
				}
			}
			if d, w := r.Deltas[1], want.Deltas[1]; d.Worse != w.Worse || !sameValue(d.Abs, w.Abs) {
				t.Errorf("p0 %s delta %+v, want %+v", r.Key, d, w)
			}
		}
	}
	if c := newComparison(t, mixed, stall); c.Prompts != nil {
		t.Errorf("prompt ids differ: per-prompt view %+v, want none", c.Prompts)
	}
}

func TestReadsFilesCutShort(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		file          string
		recs, skipped int
		canceled      int
	}{
		{"stall-cut.jsonl", 5, 1, 0},   // killed mid-write: a partial final line
		{"stall-ctrlc.jsonl", 4, 0, 2}, // Ctrl-C: in-flight streams recorded as canceled
	} {
		f, err := os.Open(filepath.Join("testdata", c.file))
		if err != nil {
			t.Fatal(err)
		}
		recs, skipped, err := record.ReadAll(f, stats.Rederive)
		f.Close()
		if err != nil || len(recs) != c.recs || len(skipped) != c.skipped {
			t.Errorf("%s: %d records, skipped %q, %v; want %d and %d skipped", c.file, len(recs), skipped, err, c.recs, c.skipped)
			continue
		}
		in := compare.Input{Label: c.file, Records: recs, Skipped: skipped}
		cmp, err := compare.New([]compare.Input{in, in}, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if got := cmp.Runs[0].Summary.Streams.Canceled; got != c.canceled {
			t.Errorf("%s: %d canceled, want %d", c.file, got, c.canceled)
		}
	}
}

func TestGatesAgainstBaseline(t *testing.T) {
	t.Parallel()
	var gates []stats.Gate
	for _, e := range []string{"e2e.p50 > +10%", "gap.p99 > +20ms", "failed > 0", "itl.p50 < -50%"} {
		g, err := stats.ParseGate(e)
		if err != nil {
			t.Fatal(err)
		}
		gates = append(gates, g)
	}
	c, err := compare.New(load(t, "steady.jsonl", "stall.jsonl"), compare.Options{Gates: gates})
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"e2e.p50 > +10%": true, "gap.p99 > +20ms": true, "failed > 0": false, "itl.p50 < -50%": false}
	if len(c.Gates) != len(want) {
		t.Fatalf("gates %+v: want one verdict per gate on the run that is not the baseline", c.Gates)
	}
	for _, g := range c.Gates {
		if g.Run != "stall.jsonl" || g.Tripped != want[g.Expr] {
			t.Errorf("%s on %s: tripped %v (%s), want %v", g.Expr, g.Run, g.Tripped, g.Message, want[g.Expr])
		}
	}
	if !c.Tripped() || len(c.Runs[1].Summary.Gates) != 4 || len(c.Runs[0].Summary.Gates) != 0 {
		t.Errorf("verdicts in the summaries: baseline %v, run %v", c.Runs[0].Summary.Gates, c.Runs[1].Summary.Gates)
	}
}

func sameValue(a, b *float64) bool { return (a == nil) == (b == nil) && (a == nil || *a == *b) }

// Every registry metric compare shows is a section of p50, p95, p99 and
// max rows titled by its label, the four added through the registry
// alone among them; their figures are recomputed here from the frames.
func TestRegistryMetricsAreCompareRows(t *testing.T) {
	t.Parallel()
	steady, stall, _ := recordedRuns(t)
	c := newComparison(t, steady, stall)
	titles := map[string]string{}
	for _, s := range c.Sections {
		titles[s.Key] = s.Title
	}
	for _, m := range stats.Registry {
		if m.Out&stats.InCompare == 0 {
			continue
		}
		if titles[m.Key] != m.Label {
			t.Errorf("section %s titled %q, want %q", m.Key, titles[m.Key], m.Label)
		}
		for _, st := range []string{"p50", "p95", "p99", "max"} {
			findRow(t, c, m.Key+"."+st)
		}
	}
	for i, recs := range [][]*record.Record{steady, stall} {
		var stream, firstEvent []float64
		for _, r := range recs {
			var content []float64
			for _, f := range r.Frames {
				if f.Kind == adapters.KindContent {
					content = append(content, f.TMS)
				}
			}
			if len(content) > 0 {
				stream = append(stream, content[len(content)-1]-content[0])
			}
			if len(r.Frames) > 0 {
				firstEvent = append(firstEvent, r.Frames[0].TMS)
			}
		}
		for key, samples := range map[string][]float64{"stream.max": stream, "first_event.p50": firstEvent} {
			exp := percentile(samples, map[string]float64{"stream.max": 100, "first_event.p50": 50}[key])
			if got := findRow(t, c, key).Values[i]; got == nil || math.Abs(*got-exp) > 1e-9 {
				t.Errorf("run %d %s = %v, recomputed %v", i, key, got, exp)
			}
		}
	}
}

// A failure class longer than the label column widens it rather than be
// cut: "failed timeout_total" read "failed timeout_to…".
func TestTextKeepsLongFailureClassesWhole(t *testing.T) {
	t.Parallel()
	steady := load(t, "steady.jsonl")[0]
	failed := compare.Input{Label: "timeouts.jsonl"}
	for i, r := range steady.Records {
		c := *r
		c.Seq, c.Status, c.Error, c.Complete = i, record.StatusFailed, &record.Error{Class: record.ErrTimeoutTotal, Message: "total timeout"}, false
		failed.Records = append(failed.Records, &c)
	}
	cmp, err := compare.New([]compare.Input{steady, failed}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	compare.Text(&b, cmp)
	if !strings.Contains(b.String(), "  failed timeout_total ") || strings.Contains(b.String(), "timeout_to…") {
		t.Errorf("the failure class's row is cut:\n%s", b.String())
	}
}

// A run whose every measured stream failed says so in its line (text) and
// in a warning (Markdown), with the failures by class: its — figures are
// otherwise all there is to tell it by.
func TestARunWithNoneCompletedSaysSo(t *testing.T) {
	t.Parallel()
	steady := load(t, "steady.jsonl")[0]
	failed := compare.Input{Label: "refused.jsonl"}
	for i, r := range steady.Records {
		c := *r
		c.Seq, c.Status, c.Error, c.Complete = i, record.StatusFailed, &record.Error{Class: record.ErrRefused, Message: "connection refused"}, false
		failed.Records = append(failed.Records, &c)
	}
	cmp, err := compare.New([]compare.Input{steady, failed}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	n := len(failed.Records)
	want := fmt.Sprintf("no measured stream completed: %d attempted, %d failed (refused %d)", n, n, n)
	var text, md bytes.Buffer
	compare.Text(&text, cmp)
	compare.Markdown(&md, cmp)
	words := strings.Join(strings.Fields(text.String()), " ")
	if strings.Count(words, want) != 1 || !strings.Contains(words, "refused.jsonl · ") {
		t.Errorf("text: want %q once, on B's line:\n%s", want, text.String())
	}
	if !strings.Contains(md.String(), "> **B: "+want+"**") || strings.Count(md.String(), "no measured stream completed") != 1 {
		t.Errorf("markdown: want a warning %q for B only:\n%s", want, md.String())
	}
}

// Streams cut short are counted beside the failed ones: a run of cut
// streams does not read "0 failed" and nothing else.
func TestNoneCompletedCountsTheCutStreams(t *testing.T) {
	t.Parallel()
	s := stats.Summary{Streams: stats.Streams{Attempted: 4, Failed: 1, FailedBy: map[string]int{record.ErrReset: 1}, Incomplete: 2, Canceled: 1}}
	if got, want := compare.NoneCompleted(&s), "no measured stream completed: 4 attempted, 1 failed (reset 1), 2 incomplete, 1 canceled"; got != want {
		t.Errorf("NoneCompleted = %q, want %q", got, want)
	}
	s.Streams.Completed = 1
	if got := compare.NoneCompleted(&s); got != "" {
		t.Errorf("with one completed: %q, want nothing", got)
	}
}
