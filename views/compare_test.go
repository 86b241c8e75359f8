package views

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// comparison compares record files drip wrote against the fixture server
// (compare/testdata), so the views are of real runs.
func comparison(t testing.TB, files ...string) *compare.Comparison {
	t.Helper()
	c, err := compare.New(recordtest.Inputs(t, filepath.Join("..", "compare", "testdata"), files...), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var compareCases = []struct {
	name  string
	files []string
}{
	{"differ", []string{"steady.jsonl", "stall.jsonl"}},                         // the workloads differ (model) and so do the figures
	{"same", []string{"stall.jsonl", "stall-again.jsonl"}},                      // the same workload twice: no banner, within noise
	{"three", []string{"steady.jsonl", "stall-cut.jsonl", "stall-ctrlc.jsonl"}}, // three runs, two cut short
}

// measuredOf is each run's measured streams, as the compare screen lists them.
func measuredOf(c *compare.Comparison) (names []string, runs [][]*record.Record) {
	for i, r := range c.Runs {
		names = append(names, compare.Letter(i)+" "+r.Label)
		var recs []*record.Record
		for _, rec := range r.Records {
			if rec.Phase != record.PhaseWarmup {
				recs = append(recs, rec)
			}
		}
		runs = append(runs, recs)
	}
	return names, runs
}

func samples(runs [][]*record.Record, f func(*record.Record) []float64) [][]float64 {
	out := make([][]float64, len(runs))
	for i, recs := range runs {
		for _, r := range recs {
			out[i] = append(out[i], f(r)...)
		}
	}
	return out
}

// TestCompareViews renders every compare view at 100 and 160 columns, in
// the rows the compare screen gives them at 100×30 and 160×45, and compares
// with golden files (go test ./views -run TestCompareViews -update).
func TestCompareViews(t *testing.T) {
	st := NewStyles(true, false)
	for _, cc := range compareCases {
		c := comparison(t, cc.files...)
		names, runs := measuredOf(c)
		for _, size := range []struct{ w, h int }{{100, 22}, {160, 36}} {
			w, h := size.w, size.h
			ttft := func(r *record.Record) []float64 {
				if r.TTFTMS == nil {
					return nil
				}
				return []float64{*r.TTFTMS}
			}
			out := map[string]string{
				"header":   CompareHeader(c, w, 8, &st),
				"figures":  CompareFigures(c, false, w, h, &st).Render(0, h),
				"scrolled": CompareFigures(c, false, w, h, &st).Render(20, h),
				"prompts":  CompareFigures(c, true, w, h, &st).Render(0, h),
				"gaps":     CompareHistogram(names, samples(runs, (*record.Record).Gaps), c.Runs[0].Records[0].StallMS, w, h/2, &st),
				"ttft":     CompareHistogram(names, samples(runs, ttft), math.Inf(1), w, 5, &st),
				"heatmaps": CompareHeatmaps(names, runs, false, 1, 2, w, 10, &st),
				"heattime": CompareHeatmaps(names, runs, true, 0, 5, w, 6, &st),
				"legend":   CompareLegend(w, &st),
			}
			for view, s := range out {
				t.Run(fmt.Sprintf("%s/%s/%d", view, cc.name, w), func(t *testing.T) {
					checkWidth(t, s, w)
					golden.RequireEqual(t, s)
				})
			}
		}
	}
}

// TestCompareFiguresSideBySide checks what a reader needs from the table:
// each run's figure on the same line as the baseline's, the change marked
// worse where it is, within noise where it is, and the banner when the
// workloads differ, never when they match.
func TestCompareFiguresSideBySide(t *testing.T) {
	st := NewStyles(true, false)
	c := comparison(t, "steady.jsonl", "stall.jsonl")
	body := ansi.Strip(CompareFigures(c, false, 100, 200, &st).Render(0, 200))
	for _, want := range []string{
		"p99              26 ms   700 ms    +674 ms   +2616% !",
		"p50             181 ms   181 ms   +0.27 ms  +0.149% ~ [-0.79 ms, +1.1 ms]",
		"tokens/s         68.27    44.21     -24.06  -35.24% !",
	} {
		if !strings.Contains(body, want) {
			t.Errorf("figures lack %q:\n%s", want, body)
		}
	}
	if h := ansi.Strip(CompareHeader(c, 100, 8, &st)); !strings.Contains(h, "⚠ workload differs") || !strings.Contains(h, "model: A steady · B mid-sentence-stall") {
		t.Errorf("no workload banner for runs of different models:\n%s", h)
	}
	same := comparison(t, "stall.jsonl", "stall-again.jsonl")
	if h := ansi.Strip(CompareHeader(same, 100, 8, &st)); strings.Contains(h, "workload differs") {
		t.Errorf("banner for the same workload:\n%s", h)
	}
}

// TestCompareFiguresNarrow drops the least important cells as the terminal
// narrows, and never lets a line wrap.
func TestCompareFiguresNarrow(t *testing.T) {
	st := NewStyles(true, false)
	c := comparison(t, "steady.jsonl", "stall-cut.jsonl", "stall-ctrlc.jsonl")
	for _, c2 := range []struct {
		w         int
		want, not string
	}{
		{160, "95% CI of Δ", ""},
		{100, "Δ%", "95% CI"},
		{80, "Δ%", "95% CI"},
		{60, "value", "Δ%"},
	} {
		out := ansi.Strip(CompareFigures(c, false, c2.w, 30, &st).Render(0, 30))
		if !strings.Contains(out, c2.want) || (c2.not != "" && strings.Contains(out, c2.not)) {
			t.Errorf("%d columns: want %q and not %q:\n%s", c2.w, c2.want, c2.not, out)
		}
		checkWidth(t, out, c2.w)
		if !strings.Contains(out, "!") {
			t.Errorf("%d columns: the worse marks are gone:\n%s", c2.w, out)
		}
	}
}

// TestCompareHostileText checks that nothing from a record file — labels,
// models, targets, prompt ids — reaches the screen as a control sequence.
func TestCompareHostileText(t *testing.T) {
	var st Styles // plain: any escape in the output came from the files
	c := comparison(t, "steady.jsonl", "stall.jsonl")
	evil := "evil\x1b]0;title\x07\u202e\r"
	for i := range c.Runs {
		c.Runs[i].Label = evil
		c.Runs[i].Summary.Workload.Model = evil
		c.Runs[i].Summary.Workload.Target = evil
	}
	c.Workload = append(c.Workload, compare.Difference{Setting: "model", Values: []string{evil, evil}})
	c.Prompts[0].ID = evil
	names, runs := measuredOf(c)
	for _, r := range runs[1] {
		r.PromptID = evil
	}
	out := CompareHeader(c, 160, 10, &st) + CompareFigures(c, true, 160, 100, &st).Render(0, 100) +
		CompareHistogram(names, samples(runs, (*record.Record).Gaps), stats.DefaultStall, 160, 10, &st) +
		CompareHeatmaps(names, runs, false, 1, 0, 160, 10, &st)
	for _, bad := range []string{"\x1b", "\x07", "\r", "\u202e"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	if !strings.Contains(out, "evil") {
		t.Errorf("labels lost:\n%s", out)
	}
}

// TestCompareTinySizes renders the compare views in sizes too small to hold
// them: nothing may panic or overflow.
func TestCompareTinySizes(t *testing.T) {
	st := NewStyles(false, true)
	c := comparison(t, "steady.jsonl", "stall-cut.jsonl", "stall-ctrlc.jsonl")
	names, runs := measuredOf(c)
	for w := 0; w <= 40; w += 4 {
		for h := 0; h <= 6; h++ {
			outs := []string{
				CompareHeader(c, w, h, &st),
				CompareFigures(c, false, w, h, &st).Render(3, h),
				CompareFigures(c, true, w, h, &st).Render(0, h),
				CompareHistogram(names, samples(runs, (*record.Record).Gaps), stats.DefaultStall, w, h, &st),
				CompareHeatmaps(names, runs, h%2 == 0, 2, 3, w, h, &st),
			}
			for _, out := range outs {
				checkTiny(t, out, w, h)
			}
		}
	}
}

// TestCompareBannerWhole: the workload banner's first line is whole at
// 80 columns (it was cut to "…not the syst…") and at 120.
func TestCompareBannerWhole(t *testing.T) {
	st := NewStyles(true, false)
	c := comparison(t, "steady.jsonl", "stall.jsonl")
	for _, tc := range []struct {
		width int
		want  string
	}{
		{80, "⚠ workload differs: a difference may come from it, not the system"},
		{120, "⚠ workload differs: a difference below may come from the workload, not the system"},
	} {
		h := ansi.Strip(CompareHeader(c, tc.width, 8, &st))
		if !strings.Contains(h, tc.want+"\n") {
			t.Errorf("%d columns: no line %q:\n%s", tc.width, tc.want, h)
		}
	}
}

// TestCompareRunWithNoRecordsYet: a run with no record yet (the live
// replay's first second) is named with its count alone, not "0 measured ·  ·".
func TestCompareRunWithNoRecordsYet(t *testing.T) {
	st := NewStyles(true, false)
	in := recordtest.Inputs(t, filepath.Join("..", "compare", "testdata"), "steady.jsonl")
	c, err := compare.New(append(in, compare.Input{Label: "replayed 0 of 5"}), compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	h := ansi.Strip(CompareHeader(c, 120, 3, &st))
	if lines := strings.Split(h, "\n"); len(lines) < 3 || strings.TrimRight(lines[2], " ") != " B replayed 0 of 5 · 0 measured" {
		t.Errorf("the empty run's line is not %q:\n%s", " B replayed 0 of 5 · 0 measured", h)
	}
}

// TestCompareHeaderKeepsTheEndpoint: a run's line ends with its target,
// which was cut at its end ("http://127.0.0.1:8089/v1/cha…"), losing the
// path; it is cut in its middle to the room left, its path's end kept.
func TestCompareHeaderKeepsTheEndpoint(t *testing.T) {
	st := NewStyles(true, false)
	c := comparison(t, "steady.jsonl", "stall.jsonl")
	for _, w := range []int{80, 100} {
		lines := strings.Split(ansi.Strip(CompareHeader(c, w, 3, &st)), "\n")
		for _, l := range lines[1:3] {
			l = strings.TrimRight(l, " ")
			if !strings.HasSuffix(l, "/completions") || !strings.Contains(l, "127.0.0.1") || textfmt.Width(l) > w {
				t.Errorf("%d columns: the run's target lost its path's end or its host: %q", w, l)
			}
		}
	}
}

// TestWhileMeasuringColoursNoCount: while runs are still measured, a count
// that is lower only because fewer streams have ended (B's stalls and
// completed at 1 of 3) carries no colour, better or worse; the final
// comparison colours it. A latency row keeps its colour.
func TestWhileMeasuringColoursNoCount(t *testing.T) {
	st := NewStyles(true, true)
	green, _, _ := strings.Cut(st.Done.Render("x"), "x")
	red, _, _ := strings.Cut(st.Failed.Render("x"), "x")
	in := recordtest.Inputs(t, filepath.Join("..", "compare", "testdata"), "stall.jsonl", "stall.jsonl")
	in[1].Records = in[1].Records[:1]
	rowLine := func(c *compare.Comparison, section, label string) string {
		sec := ""
		for _, l := range strings.Split(CompareFigures(c, false, 120, 200, &st).Render(0, 200), "\n") {
			plain := ansi.Strip(l)
			f := strings.Fields(plain)
			switch {
			case len(f) == 0:
			case !strings.HasPrefix(plain, " "): // a section's title
				sec = f[0]
			case sec == section && f[0] == label:
				return l
			}
		}
		t.Fatalf("no %s row in the %s section", label, section)
		return ""
	}
	for _, final := range []bool{true, false} {
		c, err := compare.New(in, compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		if !final {
			compare.WhileMeasuring(c)
		}
		for _, row := range [][2]string{{"stalls", "stalls"}, {"streams", "completed"}} {
			l := rowLine(c, row[0], row[1])
			if coloured := strings.Contains(l, green) || strings.Contains(l, red); coloured != final {
				t.Errorf("final %v: the %s row coloured %v, want %v: %q", final, row[1], coloured, final, l)
			}
		}
	}
}

// TestCompareBannerKeepsEveryValue: a difference too wide for the line
// groups the runs that share a value and cuts each value in its middle:
// cut at its end, "target: A http://… · B http://… · C http://127.0.…"
// lost C's, the one that differed.
func TestCompareBannerKeepsEveryValue(t *testing.T) {
	st := NewStyles(true, false)
	c := comparison(t, "steady.jsonl", "stall.jsonl", "stall-again.jsonl")
	same, other := "http://127.0.0.1:34281/v1/chat/completions", "http://127.0.0.1:57387/v1/chat/completions"
	c.Workload = []compare.Difference{{Setting: "target", Values: []string{same, same, other}}}
	for _, w := range []int{80, 120} {
		h := ansi.Strip(CompareHeader(c, w, 8, &st))
		line := h[strings.Index(h, "  target: "):]
		line, _, _ = strings.Cut(line, "\n")
		if !strings.Contains(line, "A, B ") || !strings.Contains(line, " · C ") || !strings.Contains(line, "57387") || !strings.HasSuffix(strings.TrimRight(line, " "), "/completions") {
			t.Errorf("%d columns: the targets are not all named: %q", w, line)
		}
		if textfmt.Width(line) > w {
			t.Errorf("%d columns: %d wide: %q", w, textfmt.Width(line), line)
		}
	}
}
