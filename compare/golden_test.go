package compare_test

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"

	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// The record files under testdata were written by drip itself against
// 'drip fixtures serve' (see testdata/README.md), so the renderings below
// are of real runs, and stay fixed because the records do.

func load(t *testing.T, files ...string) []compare.Input {
	t.Helper()
	return recordtest.Inputs(t, "testdata", files...)
}

func gates(t *testing.T, exprs ...string) []stats.Gate {
	t.Helper()
	var out []stats.Gate
	for _, e := range exprs {
		g, err := stats.ParseGate(e)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, g)
	}
	return out
}

func TestGolden(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		name  string
		files []string
		gates []string
	}{
		// A stalling system against a steady one, gated as in CI.
		{"steady-vs-stall", []string{"steady.jsonl", "stall.jsonl"}, []string{"ttft.p95 > +10%", "gap.p99 > +20ms", "failed > 0"}},
		// The same workload twice: no banner, differences within noise,
		// and a per-prompt breakdown.
		{"stall-twice", []string{"stall.jsonl", "stall-again.jsonl"}, nil},
		// Three runs, two of them cut short.
		{"three-runs", []string{"steady.jsonl", "stall-cut.jsonl", "stall-ctrlc.jsonl"}, []string{"e2e.p50 > +10%"}},
	} {
		c2, err := compare.New(load(t, c.files...), compare.Options{Gates: gates(t, c.gates...)})
		if err != nil {
			t.Fatal(err)
		}
		t.Run(c.name+"/text", func(t *testing.T) {
			var b bytes.Buffer
			compare.Text(&b, c2)
			golden.RequireEqual(t, b.Bytes())
		})
		t.Run(c.name+"/markdown", func(t *testing.T) {
			var b bytes.Buffer
			compare.Markdown(&b, c2)
			golden.RequireEqual(t, b.Bytes())
		})
	}
}

func TestJSON(t *testing.T) {
	t.Parallel()
	c, err := compare.New(load(t, "steady.jsonl", "stall.jsonl"), compare.Options{Gates: gates(t, "gap.p99 > +20ms")})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	if err := compare.JSON(&b, c); err != nil {
		t.Fatal(err)
	}
	var out struct {
		V        int    `json:"v"`
		Baseline string `json:"baseline"`
		Runs     []struct {
			Label   string        `json:"label"`
			Summary stats.Summary `json:"summary"`
			Deltas  []struct {
				Metric   string          `json:"metric"`
				Better   string          `json:"better"`
				Baseline *float64        `json:"baseline"`
				Value    *float64        `json:"value"`
				Abs      *float64        `json:"abs"`
				Worse    bool            `json:"worse"`
				CI       *stats.Interval `json:"ci"`
			} `json:"deltas"`
		} `json:"runs"`
		WorkloadDifferences []compare.Difference `json:"workload_differences"`
		Tripped             bool                 `json:"tripped"`
	}
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatal(err)
	}
	if out.V != 1 || out.Baseline != "steady.jsonl" || len(out.Runs) != 2 || !out.Tripped {
		t.Fatalf("output: %s", b.String())
	}
	if len(out.Runs[0].Deltas) != 0 {
		t.Errorf("the baseline has deltas: %+v", out.Runs[0].Deltas)
	}
	if got, want := *out.Runs[1].Summary.Metrics["gap_ms"].P99, *c.Runs[1].Summary.Metrics["gap_ms"].P99; got != want {
		t.Errorf("summary gap p99 %v, want %v", got, want)
	}
	if len(out.Runs[1].Summary.Gates) != 1 || !out.Runs[1].Summary.Gates[0].Tripped {
		t.Errorf("gate verdicts in the run's summary: %+v", out.Runs[1].Summary.Gates)
	}
	found := false
	for _, d := range out.Runs[1].Deltas {
		if d.Metric == "gap.p95" {
			found = true
			if d.Better != "lower" || d.CI == nil || d.Abs == nil || *d.Abs != *d.Value-*d.Baseline {
				t.Errorf("gap.p95 delta %+v", d)
			}
		}
	}
	if !found {
		t.Error("no gap.p95 delta")
	}
	if len(out.WorkloadDifferences) != 1 || out.WorkloadDifferences[0].Setting != "model" {
		t.Errorf("workload differences %+v, want the model", out.WorkloadDifferences)
	}
}

// Names from a record file reach the terminal and the pull request only
// sanitised: no escape sequence, no cell-splitting pipe.
func TestHostileNames(t *testing.T) {
	t.Parallel()
	const hostile = "evil\x1b]0;title\x07\x1b[2J|`*<b>"
	in := load(t, "steady.jsonl", "stall.jsonl")
	in[1].Label = hostile
	for _, r := range in[1].Records {
		r.Model, r.PromptID = hostile, hostile+"p"
		r.Status, r.Error = record.StatusFailed, &record.Error{Class: hostile}
	}
	c, err := compare.New(in, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var text, md bytes.Buffer
	compare.Text(&text, c)
	compare.Markdown(&md, c)
	for name, out := range map[string]string{"text": text.String(), "markdown": md.String()} {
		if strings.ContainsAny(out, "\x1b\x07") {
			t.Errorf("%s output carries a control character", name)
		}
	}
	for _, line := range strings.Split(md.String(), "\n") {
		if strings.Contains(line, "evil") && strings.Contains(line, "|`") {
			t.Errorf("markdown line with an unescaped pipe or backtick: %q", line)
		}
	}
	if !strings.Contains(text.String(), "failed evil") {
		t.Errorf("no row for the hostile failure class:\n%s", text.String())
	}
}

// The text report's noise block lines its columns up whatever the metric
// names' lengths: the run letter stands at one offset on every line (at
// ten columns, "first_event p50" pushed its line out of line).
func TestNoiseColumnsAlign(t *testing.T) {
	t.Parallel()
	c, err := compare.New(load(t, "steady.jsonl", "stall.jsonl"), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	compare.Text(&b, c)
	_, block, ok := strings.Cut(b.String(), "\nnoise: ")
	if !ok {
		t.Fatalf("no noise block:\n%s", b.String())
	}
	lines := strings.Split(block, "\n")
	for len(lines) > 1 && !strings.HasSuffix(lines[0], ")") {
		lines = lines[1:] // the header, wrapped to 80 columns
	}
	lines = lines[1:]
	at, long := -1, 0
	for _, l := range lines {
		if !strings.HasPrefix(l, "  ") {
			break
		}
		i := strings.Index(l, " B  ")
		if at < 0 {
			at = i
		}
		if i != at || i < 0 {
			t.Errorf("run column at %d, want %d: %q", i, at, l)
		}
		long = max(long, len(strings.Fields(l)[0]))
	}
	if long < len("first_event") {
		t.Errorf("no long metric name in the block (longest %d):\n%s", long, block)
	}
}

// One stream against one has no interval anywhere: the report says so
// once in the clocks and once in the noise block, in words that read
// apart ("unknownno interval" did not), instead of on every line.
func TestOneAgainstOneSaysNoIntervalOnce(t *testing.T) {
	t.Parallel()
	in := load(t, "steady.jsonl", "stall.jsonl")
	for i := range in {
		for _, r := range in[i].Records {
			if r.Phase == record.PhaseMeasure {
				in[i].Records = []*record.Record{r}
				break
			}
		}
	}
	c, err := compare.New(in, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	var b bytes.Buffer
	compare.Text(&b, c)
	out := b.String()
	if n := strings.Count(out, "no interval"); strings.Contains(out, "unknownno") || n != 2 {
		t.Errorf("a 1-vs-1 comparison says %q %d times, want twice and apart from unknown:\n%s", "no interval", n, out)
	}
}
