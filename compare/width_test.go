package compare_test

import (
	"bytes"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/record"
)

// Three or four runs keep the text report to report.Width (three took 99
// columns at two runs' fixed column widths) and keep every figure: each
// run's value, Δ, Δ% and marks on its row, each section's n, and every
// noise interval.
func TestTextFitsWidthWithEveryFigure(t *testing.T) {
	t.Parallel()
	steady, stall, stallP1 := recordedRuns(t)
	labelled := func(runs ...[]*record.Record) []compare.Input {
		var in []compare.Input
		for i, recs := range runs {
			label := []string{"baseline-steady-run.jsonl", "candidate-stall-run.jsonl", "candidate-stall-p1.jsonl", "baseline-steady-again.jsonl"}[i]
			in = append(in, compare.Input{Label: label, Records: recs})
		}
		return in
	}
	for name, in := range map[string][]compare.Input{
		"fixture/3":  labelled(steady, stall, stallP1),
		"fixture/4":  labelled(steady, stall, stallP1, steady),
		"testdata/3": load(t, "steady.jsonl", "stall-cut.jsonl", "stall-ctrlc.jsonl"),
		"testdata/4": load(t, "steady.jsonl", "stall-cut.jsonl", "stall-ctrlc.jsonl", "stall-again.jsonl"),
	} {
		t.Run(name, func(t *testing.T) {
			c, err := compare.New(in, compare.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var b bytes.Buffer
			compare.Text(&b, c)
			out := b.String()
			for _, l := range strings.Split(out, "\n") {
				if ansi.StringWidth(l) > report.Width {
					t.Errorf("%d columns: %q", ansi.StringWidth(l), l)
				}
			}
			checkTable(t, c, tableLines(t, c, out))
			flat := strings.Join(strings.Fields(out), " ")
			for _, sec := range c.Sections {
				for _, r := range sec.Rows {
					for _, d := range r.Deltas[1:] {
						if v := compare.NoiseVerdict(r, d); d.CI != nil && !strings.Contains(flat, v) {
							t.Errorf("no interval %q", v)
						}
					}
				}
			}
			if t.Failed() {
				t.Log("\n" + out)
			}
		})
	}
}

// tableLines are the cells of the whole runs' table by line: a section's
// under its title, a row's under title/label, one entry per block of runs.
func tableLines(t *testing.T, c *compare.Comparison, out string) map[string][][]string {
	t.Helper()
	_, table, _ := strings.Cut(out, "\nstreams\n")
	table, _, ok := strings.Cut("streams\n"+table, "\n! worse by")
	if !ok {
		t.Fatalf("no table:\n%s", out)
	}
	cells := map[string][][]string{}
	var sec *compare.Section
	for _, l := range strings.Split(table, "\n") {
		var title *compare.Section // the longest title the line starts with: "ttft path", not "ttft"
		for i := range c.Sections {
			if s := &c.Sections[i]; (l == s.Title || strings.HasPrefix(l, s.Title+" ")) && (title == nil || len(s.Title) > len(title.Title)) {
				title = s
			}
		}
		if title != nil {
			sec = title
			cells[sec.Title] = append(cells[sec.Title], cellFields(l[len(sec.Title):]))
		}
		if sec == nil || !strings.HasPrefix(l, "  ") {
			continue
		}
		label := ""
		for _, r := range sec.Rows {
			if strings.HasPrefix(l, "  "+r.Label+" ") && len(r.Label) > len(label) {
				label = r.Label
			}
		}
		if label != "" {
			key := sec.Title + "/" + label
			cells[key] = append(cells[key], cellFields(l[2+len(label):]))
		}
	}
	return cells
}

// cellFields splits a table line into its cells. A time's unit stays with
// its figure ("181 ms", "+1.38 s"), as the columns may be one space apart.
func cellFields(l string) []string {
	var out []string
	for _, f := range strings.Fields(l) {
		if (f == "ms" || f == "s") && len(out) > 0 {
			out[len(out)-1] += " " + f
			continue
		}
		out = append(out, f)
	}
	return out
}

// checkTable says which figure of c the table's cells lack or misplace:
// every block starts with the baseline's, then each of its runs' in order.
func checkTable(t *testing.T, c *compare.Comparison, cells map[string][][]string) {
	t.Helper()
	check := func(key, base string, want []string) {
		var got []string
		for _, line := range cells[key] {
			if len(line) == 0 || line[0] != base {
				t.Errorf("%s: a block without the baseline's %s: %q", key, base, line)
				continue
			}
			got = append(got, line[1:]...)
		}
		if !slices.Equal(got, want) {
			t.Errorf("%s: cells %q, want %q", key, got, want)
		}
	}
	for _, sec := range c.Sections {
		if sec.N != nil {
			var want []string
			for _, n := range sec.N[1:] {
				want = append(want, "n="+strconv.Itoa(n))
			}
			check(sec.Title, "n="+strconv.Itoa(sec.N[0]), want)
		}
		for _, r := range sec.Rows {
			var want []string
			for i, d := range r.Deltas[1:] {
				want = append(want, compare.FormatValue(r, r.Values[i+1]), compare.FormatDeltaAbs(r, d), compare.FormatDeltaPct(d))
				if m := compare.Marks(d); m != "" {
					want = append(want, m)
				}
			}
			check(sec.Title+"/"+r.Label, compare.FormatValue(r, r.Values[0]), want)
		}
	}
}
