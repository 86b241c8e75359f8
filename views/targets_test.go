package views

import (
	"fmt"
	"regexp"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// targetRuns are three runs each of a steady and a stalling target, as
// the watch screen of two targets holds them after two presses of r.
func targetRuns(t testing.TB) (steady, stall []*record.Record, c *compare.Comparison) {
	for i := range 3 {
		steady = append(steady, replay(t, "steady", i))
		stall = append(stall, replay(t, "mid-sentence-stall", i))
	}
	c, err := compare.New([]compare.Input{{Label: "steady", Records: steady}, {Label: "stall", Records: stall}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return steady, stall, c
}

// live is r cut at atMS as the screen sees it while it streams: the frames
// so far, derived, with the clock at atMS.
func live(t testing.TB, r *record.Record, atMS float64) *Stream {
	cp := *r
	n := 0
	for n < len(r.Frames) && r.Frames[n].TMS <= atMS {
		n++
	}
	cp.Frames = r.Frames[:n:n]
	cp.DurationMS = atMS
	if err := stats.Derive(&cp, stats.DefaultStall); err != nil {
		t.Fatal(err)
	}
	return &Stream{Run: 4, Phase: PhaseStreaming, ElapsedMS: atMS, Record: &cp}
}

// TestTargetViews renders the panels of the watch screen of several
// targets and the scatter at 40, 80 and 120 columns against golden files
// (go test ./views -update rewrites them).
func TestTargetViews(t *testing.T) {
	st := NewStyles(true, false)
	steady, stall, c := targetRuns(t)
	done := &Stream{Run: 3, Phase: PhaseDone, Record: stall[2]}
	stalling := live(t, stall[0], 1300) // 500 ms into the 700 ms stall
	buffered := &Stream{Run: 1, Phase: PhaseDone, Record: replay(t, "buffered-burst", 0)}
	var pts []ScatterPoint
	var trends []Trend
	for i, runs := range [][]*record.Record{steady, stall} {
		ttft, gap := Trend{Series: i, Label: "ttft"}, Trend{Series: i, Label: "gap p99"}
		for _, r := range runs {
			p, ok := PointOf(i, r)
			if !ok {
				t.Fatalf("run %d of %d has no point", r.Seq, i)
			}
			pts = append(pts, p)
			ttft.Values, gap.Values = append(ttft.Values, &p.TTFTMS), append(gap.Values, &p.GapMS)
		}
		trends = append(trends, ttft, gap)
	}
	for _, w := range []int{40, 80, 120} {
		var text WrappedText
		text.Update(stall[2], w)
		to := AxisEnd(stall[2].DurationMS)
		views := map[string]string{
			"title-done":     TargetTitle("B", "stall", done, w, &st),
			"title-stalling": TargetTitle("B", "stall", stalling, w, &st),
			"title-buffered": TargetTitle("C", "proxy", buffered, w, &st),
			"lanes": TimelineLane(&Stream{Run: 3, Phase: PhaseDone, Record: steady[2]}, steady[:2], to, w, 4, &st) + "\n" +
				TimelineLane(done, stall[:2], to, w, 4, &st) + "\n" + TimeAxis(to, w, &st),
			"lane-stalling": TimelineLane(stalling, nil, AxisEnd(1300), w, 2, &st),
			"clocks":        TargetClocks(c, []string{"steady", "stall"}, w, TargetClocksRows(), &st),
			"clocks-short":  TargetClocks(c, []string{"steady", "stall"}, w, 5, &st),
			"clocks-empty":  TargetClocks(nil, []string{"steady", "stall"}, w, 3, &st),
			"text":          text.Render(0, text.Lines(), &st),
			"scatter":       Scatter(pts, true, 1, stats.DefaultStall, w, 14, &st),
			"trend":         TrendStrip(trends, "runs", w, 4, &st),
		}
		for view, out := range views {
			t.Run(fmt.Sprintf("%s/%d", view, w), func(t *testing.T) {
				checkWidth(t, out, w)
				golden.RequireEqual(t, out)
			})
		}
	}
}

// TestTargetViewsSay checks what a user must read in the new panels: the
// stall in progress growing, a buffered stream's end-to-end rate, the
// deltas with their intervals at three runs, a point per run on the
// scatter with the threshold line and the quadrants.
func TestTargetViewsSay(t *testing.T) {
	st := NewStyles(true, false)
	steady, stall, c := targetRuns(t)
	checks := []struct {
		name, out string
		wants     []string
	}{
		{"stall in progress", TargetTitle("B", "stall", live(t, stall[0], 1300), 120, &st), []string{"stalled ⏸ 5", "first byte"}},
		{"stall in progress lane", TimelineLane(live(t, stall[0], 1300), nil, AxisEnd(1300), 120, 2, &st), []string{"━⏸ 5", "…"}},
		{"buffered", TargetTitle("C", "proxy", &Stream{Run: 1, Phase: PhaseDone, Record: replay(t, "buffered-burst", 0)}, 160, &st), []string{"buffered", "tok/s end to end"}},
		{"deltas", TargetClocks(c, []string{"steady", "stall"}, 120, TargetClocksRows(), &st), []string{"A 3 runs", "B 3 runs", "[", "gap p99", "!"}},
		{"short clocks say what they cut", TargetClocks(c, nil, 120, 5, &st), []string{"more rows: 2 shows every figure"}},
	}
	one, err := compare.New([]compare.Input{{Label: "steady", Records: steady[:1]}, {Label: "stall", Records: stall[:1]}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	// With one run a target there are no intervals yet: the note said
	// "intervals from 3 runs per target", as if there were.
	checks = append(checks, struct {
		name, out string
		wants     []string
	}{"one run each", TargetClocks(one, nil, 120, TargetClocksRows(), &st), []string{"A 1 run", "intervals once each target has 3 runs"}})
	var pts []ScatterPoint
	for i, runs := range [][]*record.Record{steady, stall} {
		for _, r := range runs {
			p, _ := PointOf(i, r)
			pts = append(pts, p)
		}
	}
	sc := Scatter(pts, true, 0, stats.DefaultStall, 120, 16, &st)
	checks = append(checks, struct {
		name, out string
		wants     []string
	}{"scatter", sc, []string{"stall 250 ms", "transport", "queue", "healthy", "┄", "┆"}})
	for _, c := range checks {
		out := strings.ReplaceAll(ansi.Strip(c.out), nbsp, " ")
		for _, want := range c.wants {
			if !strings.Contains(out, want) {
				t.Errorf("%s: no %q in\n%s", c.name, want, out)
			}
		}
	}
	// Three runs each land as letters: the steady runs below the stall
	// line, the stalling ones above it (the same cell holds them all).
	plain := ansi.Strip(sc)
	above, below := plain[:strings.Index(plain, "stall 250 ms")], plain[strings.Index(plain, "stall 250 ms"):]
	if !strings.Contains(above, "B") || strings.Contains(above, "A") || !strings.Contains(below, "A") {
		t.Errorf("scatter: want B above the stall line and A below:\n%s", plain)
	}
}

// TestWrappedTextIncremental checks that text wrapped frame by frame, as
// the screen takes it in, is the text wrapped at once, at every width,
// and that every line fits.
func TestWrappedTextIncremental(t *testing.T) {
	st := NewStyles(true, false)
	for _, scenario := range []string{"mid-sentence-stall", "reasoning", "hostile-text"} {
		r := replay(t, scenario, 0)
		for _, w := range []int{7, 40, 80} {
			var once, step WrappedText
			once.Update(r, w)
			cp := *r
			for n := range len(r.Frames) + 1 {
				cp.Frames = r.Frames[:n]
				step.Update(&cp, w)
			}
			a, b := once.Render(0, once.Lines(), &st), step.Render(0, step.Lines(), &st)
			if a != b {
				t.Errorf("%s at %d: frame by frame\n%s\nat once\n%s", scenario, w, b, a)
			}
			for i, l := range strings.Split(a, "\n") {
				if lw := ansi.StringWidth(l); lw != w {
					t.Errorf("%s at %d: line %d is %d wide: %q", scenario, w, i, lw, l)
				}
			}
		}
	}
	r := replay(t, "mid-sentence-stall", 0)
	var wt WrappedText
	wt.Update(r, 80)
	line := wt.WorstStallLine()
	if got := ansi.Strip(wt.Render(line, 1, &st)); !strings.Contains(got, "⏸"+nbsp+"700"+nbsp+"ms") {
		t.Errorf("worst stall line %d is %q, want the 700ms marker", line, got)
	}
}

// TestTargetClocksFitEighty: with three or four targets the clocks table
// fits 80 columns whole — every target's column and every delta's mark —
// the deltas giving up their interval and then their ms first, as the
// note says (#13: with three targets the last column was cut off).
func TestTargetClocksFitEighty(t *testing.T) {
	st := NewStyles(true, false)
	var inputs []compare.Input
	for _, sc := range []string{"steady", "mid-sentence-stall", "multi-token", "steady"} {
		var recs []*record.Record
		for i := range 3 {
			recs = append(recs, replay(t, sc, i))
		}
		inputs = append(inputs, compare.Input{Label: sc, Records: recs})
	}
	for _, n := range []int{3, 4} {
		c, err := compare.New(inputs[:n], compare.Options{})
		if err != nil {
			t.Fatal(err)
		}
		out := TargetClocks(c, nil, 80, TargetClocksRows(), &st)
		plain := strings.ReplaceAll(ansi.Strip(out), nbsp, " ")
		lines := strings.Split(plain, "\n")
		for i, l := range lines {
			if w := ansi.StringWidth(l); w > 80 || strings.Contains(l, "…") {
				t.Errorf("%d targets: line %d is %d cells (cut: %v): %q", n, i, w, strings.Contains(l, "…"), l)
			}
		}
		last := compare.Letter(n-1) + " 3 runs"
		if !strings.Contains(lines[0], last) {
			t.Errorf("%d targets: no %q in the heading %q", n, last, lines[0])
		}
		if !strings.Contains(plain, "stalls") || !strings.Contains(plain, "!") || !strings.Contains(plain, "wider:") {
			t.Errorf("%d targets: the marks or the note are missing:\n%s", n, plain)
		}
	}
}

// TestTargetClocksDeltasAligned: in the watch screen's clocks table every
// row's Δ% ends in the same column (at 120 columns "-0.181 -0.100%" and
// "+462.4 +1791% !" each ended where its value did).
func TestTargetClocksDeltasAligned(t *testing.T) {
	st := NewStyles(true, false)
	_, _, c := targetRuns(t)
	out := ansi.Strip(TargetClocks(c, nil, 120, TargetClocksRows(), &st))
	ends := map[int]bool{}
	for _, l := range strings.Split(out, "\n")[1 : len(targetRows)+1] {
		if i := strings.LastIndex(l, "%"); i >= 0 {
			ends[len([]rune(l[:i]))] = true
		}
	}
	if len(ends) != 1 {
		t.Errorf("the Δ%% ends in %d different columns:\n%s", len(ends), out)
	}
}

// TestTargetPluralsAndSingleRuns: one row cut is "1 more row", and a
// trend of one run reads "182 ms run 1", not "182ms–182ms runs 1–1".
func TestTargetPluralsAndSingleRuns(t *testing.T) {
	st := NewStyles(true, false)
	_, _, c := targetRuns(t)
	short := ansi.Strip(TargetClocks(c, nil, 120, TargetClocksRows()-1, &st))
	if !strings.Contains(short, "… 1 more row: ") {
		t.Errorf("one row cut is not said '1 more row':\n%s", short)
	}
	v := 182.0
	strip := ansi.Strip(TrendStrip([]Trend{{Series: -1, Label: "ttft", Values: []*float64{&v}}}, "runs", 80, 1, &st))
	if !strings.HasSuffix(strings.TrimRight(strip, " "), "182 ms run 1") {
		t.Errorf("a one-run trend reads %q, want it to end '182 ms run 1'", strip)
	}
}

// TestTrendTailWhole: the run screen's trend counts streams, and its
// tail " 181–182 ms streams 1–3" did not fit the 22 cells a row kept
// for it, cut to "streams …" at every width.
func TestTrendTailWhole(t *testing.T) {
	st := NewStyles(true, false)
	a, b, c := 181.0, 182.0, 181.5
	for _, width := range []int{80, 200} {
		out := ansi.Strip(TrendStrip([]Trend{{Series: -1, Label: "ttft", Values: []*float64{&a, &b, &c}}}, "streams", width, 1, &st))
		if !strings.HasSuffix(strings.TrimRight(out, " "), "181–182 ms streams 1–3") || ansi.StringWidth(out) > width {
			t.Errorf("%d columns: %q, want it to end '181–182 ms streams 1–3'", width, out)
		}
	}
}

// TestLaneMarksKeepTheirLabels: a target's lane on the watch screen's
// shared axis put the last content's bare mark inside the TTFT label when
// the two were close ("▲ttft 1▲2ms", "▲▲tft 802ms" at 80 columns); the
// label stays whole, on every axis a slower target can give the lane.
func TestLaneMarksKeepTheirLabels(t *testing.T) {
	st := NewStyles(true, false)
	for _, scenario := range []string{"abort-midstream", "buffered-burst", "steady"} {
		r := replay(t, scenario, 0)
		label := "ttft " + textfmt.MS(*r.TTFTMS)
		for _, w := range []int{80, 120} {
			for to := 500.0; to <= 4000; to += 100 {
				lane := ansi.Strip(TimelineLane(&Stream{Run: 1, Phase: PhaseDone, Record: r}, nil, AxisEnd(to), w, 2, &st))
				marks := strings.Split(lane, "\n")[1]
				if !strings.Contains(marks, "▲"+label) && !strings.Contains(marks, label+"▲") {
					t.Errorf("%s at %d columns, axis to %s: the marker row lost %q: %q", scenario, w, textfmt.MS(AxisEnd(to)), label, marks)
				}
			}
		}
	}
}

// TestTargetTitleDropsWholeParts: at 80 columns a pane's title was cut at
// its end: a buffered stream's read "… end to end · f…" and a reset one's
// "failed: reset — read tcp 127.0.0.1:36712->127.0.0…", its TTFT lost
// behind the message the pane's text shows whole. Whole parts go, first
// byte first, and the message is cut before the TTFT goes.
func TestTargetTitleDropsWholeParts(t *testing.T) {
	st := NewStyles(true, false)
	reset := replay(t, "abort-midstream", 0)
	reset.Status = record.StatusFailed
	reset.Error = &record.Error{Class: record.ErrReset, Message: "read tcp 127.0.0.1:36712->127.0.0.1:18931: read: connection reset by peer"}
	for _, tc := range []struct {
		name, target string
		r            *record.Record
		wants        []string
	}{
		{"buffered", "buffered-burst", replay(t, "buffered-burst", 0), []string{"done ", "· buffered · ttft "}},
		{"reset", "abort-midstream", reset, []string{"failed: reset — read tcp", "…", "· ttft 1"}},
		{"stalls", "mid-sentence-stall", replay(t, "mid-sentence-stall", 0), []string{"· ttft 1", "· 2 stalls"}},
	} {
		line := strings.TrimRight(ansi.Strip(TargetTitle("C", tc.target, &Stream{Run: 1, Phase: PhaseDone, Record: tc.r}, 80, &st)), " ")
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("%s: %d columns: %q", tc.name, w, line)
		}
		for _, want := range tc.wants {
			if !strings.Contains(line, want) {
				t.Errorf("%s: %q lacks %q", tc.name, line, want)
			}
		}
		if strings.HasSuffix(line, "…") && !strings.Contains(line, "… · ") {
			t.Errorf("%s: the line ends in a stub: %q", tc.name, line)
		}
	}
}

// TestLaneShowsWhereAStreamBroke: a stream an idle timeout ended showed
// "⏸ 680ms…" growing while it waited, then, failed, a lane that stopped
// at its last frame: the second it waited and where it broke were gone.
// A failed stream with no error frame draws its silence as a wait and ✖
// where it ended, beside the last frame when they share a cell.
func TestLaneShowsWhereAStreamBroke(t *testing.T) {
	st := NewStyles(true, false)
	idle := replay(t, "steady", 0)
	idle.Frames = idle.Frames[:12]
	idle.Status, idle.Complete = record.StatusFailed, false
	idle.Error = &record.Error{Class: record.ErrTimeoutIdle}
	idle.DurationMS = idle.Frames[11].TMS + 1000
	reset := replay(t, "abort-midstream", 0) // as drip saw it: reset 2ms after its last frame
	reset.Status, reset.Error = record.StatusFailed, &record.Error{Class: record.ErrReset}
	reset.DurationMS = reset.Frames[len(reset.Frames)-1].TMS + 2
	refused := &record.Record{Status: record.StatusFailed, Error: &record.Error{Class: record.ErrHTTP4xx}, DurationMS: 90}
	for _, tc := range []struct {
		name string
		r    *record.Record
		want *regexp.Regexp
	}{
		{"idle timeout", idle, regexp.MustCompile(`│╌{10,}✖ *$`)},
		{"reset", reset, regexp.MustCompile(`│╌*✖ *$`)},
		{"429", refused, regexp.MustCompile(`^#1 +╌+✖ *$`)},
		{"complete", replay(t, "steady", 0), regexp.MustCompile(`■ *$`)},
	} {
		for _, w := range []int{80, 120} {
			lane := strings.Split(ansi.Strip(TimelineLane(&Stream{Run: 1, Phase: PhaseDone, Record: tc.r}, nil, AxisEnd(tc.r.DurationMS), w, 2, &st)), "\n")[0]
			if !tc.want.MatchString(lane) || tc.name == "complete" && strings.Contains(lane, "✖") {
				t.Errorf("%s at %d columns: lane %q, want it to match %s", tc.name, w, lane, tc.want)
			}
		}
	}
}

// TestTargetClocksLineUpUnderTheHeading: a target whose runs all failed
// (HTTP 429) has "—" for most figures, and its column squeezed under its
// heading to "— —  —" beside "0 0 0%". The cells line up at the heading's
// right edge whatever they hold.
func TestTargetClocksLineUpUnderTheHeading(t *testing.T) {
	st := NewStyles(true, false)
	steady := []*record.Record{replay(t, "steady", 0), replay(t, "steady", 1)}
	var limited []*record.Record
	for i := range 2 {
		limited = append(limited, &record.Record{Seq: i, Status: record.StatusFailed, Error: &record.Error{Class: record.ErrHTTP429}, DurationMS: 2})
	}
	c, err := compare.New([]compare.Input{{Label: "steady", Records: steady}, {Label: "rate-limited", Records: limited}}, compare.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(ansi.Strip(TargetClocks(c, nil, 80, TargetClocksRows(), &st)), "\n")
	edge := ansi.StringWidth(strings.TrimRight(lines[0], " ")) // the end of "B 2 runs"
	for _, l := range lines[1 : len(lines)-1] {
		r := []rune(l)
		if len(r) < edge || r[edge-1] == ' ' || edge < len(r) && r[edge] != ' ' {
			t.Errorf("a cell does not end under the heading's edge (column %d):\n%s\n%s", edge, lines[0], l)
		}
	}
}

// TestTargetURLsCutOneWay: three targets at 80 columns had their URLs cut
// three ways (A and B whole, the status cut; C cut at its end, losing the
// path that names the endpoint). Every pane title now cuts a URL as every
// header does (ElideURL): the host and the path's end, the status kept.
func TestTargetURLsCutOneWay(t *testing.T) {
	st := NewStyles(true, false)
	done := &Stream{Run: 1, Phase: PhaseDone, Record: replay(t, "mid-sentence-stall", 0)}
	for _, u := range []string{
		"http://127.0.0.1:18947/v1/chat/completions",
		"https://inference.example-cloud.internal:8443/v1/chat/completions",
		"http://127.0.0.1:18947/v1beta/models/mid-sentence-stall:streamGenerateContent?alt=sse",
	} {
		line := strings.TrimRight(ansi.Strip(TargetTitle("C", u, done, 80, &st)), " ")
		shown, _, _ := strings.Cut(strings.TrimPrefix(line, " C  "), " · run 1")
		if shown != ElideURL(u, textfmt.Width(shown)) || !strings.Contains(line, "· run 1 · done") || !strings.Contains(line, "ttft 1") {
			t.Errorf("%s at 80 columns: %q, want the URL as ElideURL cuts it (%q), the status and the ttft", u, line, ElideURL(u, textfmt.Width(shown)))
		}
		if w := ansi.StringWidth(line); w > 80 {
			t.Errorf("%s: %d columns: %q", u, w, line)
		}
	}
}
