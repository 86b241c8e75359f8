package views

import (
	"fmt"
	"slices"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/recordtest"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// replay records a fixture scenario with the fixture's own times, so the
// record is the same on every machine.
func replay(t testing.TB, scenario string, seq int) *record.Record {
	t.Helper()
	return recordtest.Scenario(t, scenario, &record.Record{Seq: seq, Target: "http://127.0.0.1:8089/v1/chat/completions"})
}

// checkWidth fails t for each line of out wider than w cells.
func checkWidth(t *testing.T, out string, w int) {
	t.Helper()
	for i, l := range strings.Split(out, "\n") {
		if lw := ansi.StringWidth(l); lw > w {
			t.Errorf("line %d is %d cells wide, more than %d: %q", i, lw, w, l)
		}
	}
}

// checkTiny stops t when out, drawn in w×h, has more lines than h (or
// than one, when h is 0) or a line wider than w.
func checkTiny(t *testing.T, out string, w, h int) {
	t.Helper()
	lines := strings.Split(out, "\n")
	if out != "" && len(lines) > max(h, 1) {
		t.Fatalf("%dx%d: %d lines", w, h, len(lines))
	}
	for _, l := range lines {
		if ansi.StringWidth(l) > w {
			t.Fatalf("%dx%d: line %q too wide", w, h, l)
		}
	}
}

// cases are the streams every view is checked against: a finished stream
// with stalls (and two earlier runs), one that has not started, one failed.
func cases(t testing.TB) map[string]struct {
	cur     *Stream
	earlier []*record.Record
} {
	stall := replay(t, "mid-sentence-stall", 2)
	empty := &record.Record{Seq: 0, Target: "http://127.0.0.1:8089/v1/chat/completions", Format: "openai-chat", StallMS: stats.DefaultStall}
	if err := stats.Derive(empty, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	failed := replay(t, "in-stream-error", 0)
	return map[string]struct {
		cur     *Stream
		earlier []*record.Record
	}{
		"stall":  {&Stream{Run: 3, Phase: PhaseDone, Record: stall}, []*record.Record{replay(t, "mid-sentence-stall", 0), replay(t, "steady", 1)}},
		"empty":  {&Stream{Run: 1, Phase: PhaseWaiting, ElapsedMS: 1234, Record: empty}, nil},
		"failed": {&Stream{Run: 1, Phase: PhaseDone, Record: failed}, nil},
	}
}

func summaryOf(recs ...*record.Record) *stats.Summary {
	a := stats.NewAggregate(stats.DefaultStall)
	for _, r := range recs {
		a.Add(r)
	}
	s := a.Summary(stats.Workload{})
	return &s
}

// TestViews renders every view at 80 and 120 columns for each case and
// compares with golden files (go test ./views -update rewrites them).
func TestViews(t *testing.T) {
	st := NewStyles(true, false)
	for name, c := range cases(t) {
		for _, w := range []int{80, 120} {
			runs := append(append([]*record.Record(nil), c.earlier...), c.cur.Record)
			var all *stats.Summary
			if len(runs) > 1 {
				all = summaryOf(runs...)
			}
			views := map[string]string{
				"header":   Header(c.cur, "", w, 2, &st),
				"timeline": Timeline(c.cur, c.earlier, 0, w, 6, &st),
				"zoomed":   Timeline(c.cur, c.earlier, 1000, w, 6, &st),
				"text":     wrapAll(c.cur.Record, w, &st),
				"clocks":   ClocksPanel(Clocks{Record: c.cur.Record, This: summaryOf(c.cur.Record), All: all}, w, 15, &st),
				"gaps":     Gaps(c.cur.Record, w, 14, &st),
				"heatmap":  Heatmap(runs, false, 0, w, 5, &st),
				"heattime": Heatmap(runs, true, 0, w, 5, &st),
			}
			for view, out := range views {
				t.Run(fmt.Sprintf("%s/%s/%d", view, name, w), func(t *testing.T) {
					checkWidth(t, out, w)
					golden.RequireEqual(t, out)
				})
			}
		}
	}
}

// TestStallVisible checks, on the default demo stream, what a user must see:
// the stall spanned and labelled on the timeline, marked mid-sentence in the
// text, counted in the clocks, in the histogram's top bucket and the heatmap.
func TestStallVisible(t *testing.T) {
	st := NewStyles(true, false)
	r := replay(t, "mid-sentence-stall", 0)
	cur := &Stream{Run: 1, Phase: PhaseDone, Record: r}
	if tl := ansi.Strip(Timeline(cur, nil, 0, 120, 4, &st)); !strings.Contains(tl, "━⏸ 700 ms━") {
		t.Errorf("timeline has no labelled stall:\n%s", tl)
	}
	if txt := ansi.Strip(wrapAll(r, 120, &st)); !strings.Contains(txt, "middle of a ⏸\u00a0700\u00a0ms sentence") {
		t.Errorf("text has no stall marker where the stall happened:\n%s", txt)
	}
	if c := ansi.Strip(ClocksPanel(Clocks{Record: r, This: summaryOf(r)}, 80, 15, &st)); !strings.Contains(c, "2 (1 mid-sentence)") {
		t.Errorf("clocks do not count the stalls:\n%s", c)
	}
	if g := ansi.Strip(Gaps(r, 80, 14, &st)); !strings.Contains(g, "500 ms–1 s █") {
		t.Errorf("histogram has no stall bucket:\n%s", g)
	}
	if h := ansi.Strip(Heatmap([]*record.Record{r}, false, 0, 120, 3, &st)); !strings.Contains(h, "█") {
		t.Errorf("heatmap shows no stall:\n%s", h)
	}
}

// TestHostileText checks that nothing a server sends reaches the screen as
// a control sequence.
func TestHostileText(t *testing.T) {
	var st Styles // plain: any escape in the output came from the server
	r := replay(t, "hostile-text", 0)
	r.Model = "evil\x1b]0;title\x07"
	out := wrapAll(r, 120, &st) + Header(&Stream{Run: 1, Phase: PhaseDone, Record: r}, "", 120, 2, &st)
	for _, bad := range []string{"\x1b", "\x07", "\r", "\b", "\u202e", "\u2066", "\u009b", "\x00"} {
		if strings.Contains(out, bad) {
			t.Errorf("output contains %q", bad)
		}
	}
	if !strings.Contains(out, "The end.") {
		t.Errorf("text lost: %q", out)
	}
}

// TestTinySizes renders every view in sizes too small to hold it: nothing
// may panic or overflow.
func TestTinySizes(t *testing.T) {
	st := NewStyles(false, true)
	for _, c := range cases(t) {
		runs := append(append([]*record.Record(nil), c.earlier...), c.cur.Record)
		for w := 0; w <= 30; w += 3 {
			for h := 0; h <= 6; h++ {
				outs := []string{
					Header(c.cur, "note", w, h, &st), Timeline(c.cur, c.earlier, 0, w, h, &st),
					ClocksPanel(Clocks{Record: c.cur.Record, This: summaryOf(c.cur.Record)}, w, h, &st),
					Gaps(c.cur.Record, w, h, &st), Heatmap(runs, h%2 == 0, 0, w, h, &st),
				}
				for _, out := range outs {
					checkTiny(t, out, w, h)
				}
			}
		}
	}
}

// wrapAll is a record's whole text as the text panel wraps it.
func wrapAll(r *record.Record, width int, st *Styles) string {
	var t WrappedText
	t.Update(r, width)
	return t.Render(0, t.Lines(), st)
}

// TestBufferedBurstVisible: an answer that came in one read with its end
// marker is one cell on the timeline; the end takes the next cell, or
// gives way at the axis's end, rather than hide the burst (the row showed
// ■ alone, no █). With a longer run on the axis, the end is beside the burst.
func TestBufferedBurstVisible(t *testing.T) {
	r := replay(t, "buffered-burst", 0)
	last := r.Frames[len(r.Frames)-1]
	if last.Kind != adapters.KindEnd || last.Read != r.Frames[len(r.Frames)-2].Read {
		t.Fatalf("the fixture's end marker is not in the burst's read: %+v", last)
	}
	st := NewStyles(true, false)
	for _, w := range []int{80, 120} {
		out := ansi.Strip(Timeline(&Stream{Run: 1, Phase: PhaseDone, Record: r}, nil, 0, w, 3, &st))
		if wider := strings.Split(ansi.Strip(Timeline(&Stream{Run: 1, Phase: PhaseDone, Record: r}, []*record.Record{longer(r)}, 0, w, 3, &st)), "\n"); !strings.Contains(wider[len(wider)-3], string(glyphBurst)+string(glyphEnd)) {
			t.Errorf("width %d, a longer run above: the burst and its end are not side by side:\n%s", w, strings.Join(wider, "\n"))
		}
		row := strings.Split(out, "\n")[0]
		if !strings.Contains(row, string(glyphBurst)) {
			t.Errorf("width %d: the burst is hidden:\n%s", w, out)
		}
	}
}

// longer is a run like r that ended a second later, so the axis runs past r.
func longer(r *record.Record) *record.Record {
	l := *r
	l.DurationMS += 1000
	return &l
}

// TestTextNamesReasoningAndTools: reasoning and tool arguments open with
// their name and the timeline's glyph, so that they read apart from the
// answer without colour; the answer carries no label.
func TestTextNamesReasoningAndTools(t *testing.T) {
	st := NewStyles(true, false)
	r := replay(t, "reasoning", 0)
	txt := strings.ReplaceAll(ansi.Strip(wrapAll(r, 200, &st)), nbsp, " ")
	if !strings.HasPrefix(txt, "┊ reasoning: The user wants") || strings.Count(txt, "reasoning:") != 1 {
		t.Errorf("the reasoning is not named once, at its start:\n%s", txt)
	}
	if !strings.Contains(txt, "\nA stream that feels fast") {
		t.Errorf("the answer does not start its own line, unlabelled:\n%s", txt)
	}
	steady := replay(t, "steady", 0)
	tool := *steady
	tool.Frames = slices.Clone(steady.Frames)
	n := 0
	for i := range tool.Frames {
		if tool.Frames[i].IsContent() {
			if n++; n > 5 {
				tool.Frames[i].Channel = adapters.ChannelTool
			}
		}
	}
	txt = strings.ReplaceAll(ansi.Strip(wrapAll(&tool, 200, &st)), nbsp, " ")
	if !strings.Contains(txt, " ┼ tool: ") || strings.Count(txt, "tool:") != 1 {
		t.Errorf("the tool arguments are not named once where they start:\n%s", txt)
	}
}
