package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/bubbles/v2/table"
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// runLayout places the run screen's panels. A box's h counts its title
// line, and 0 hides it. Everything shows at 120×40. Below 100 columns the
// TTFT and gap histograms sit beside the heatmap. As rows run out the
// heatmap goes, then the timeline. Pages 2 and 3 show
// one panel, page, below the header, counts and tabs.
type runLayout struct {
	header, counts, tabs, sweep, table, ttft, gaps, heat, tl, page, help slot
	right                                                                slot // ttft over gaps, beside the table
	rows, pageRows                                                       grid
}

// newRunLayout gives each slot its panel, and layout sizes them.
func newRunLayout(rs *runScreen) runLayout {
	l := runLayout{
		sweep: slot{p: runSweepPanel{rs}}, table: slot{p: runTable{rs}},
		ttft: slot{p: runTTFT{rs}}, gaps: slot{p: runGaps{rs}}, heat: slot{p: runHeatmap{rs}},
		tl: slot{p: runTimeline{rs}}, page: slot{p: runPageBody{rs}}, tabs: slot{p: runTabs{rs}},
		help: slot{p: helpPanel{&rs.help, &rs.keys, &rs.keys.Help, &rs.keys.Quit, &rs.helpBar}},
	}
	return l // render sets the header's and counts' views, as they come from one snapshot a frame
}

// layout sizes the panels for the shell's size and the counts' height.
func (rs *runScreen) layout(countsH int) {
	w, h := rs.sh.width, rs.sh.height
	l := &rs.lay
	for _, s := range []*slot{&l.sweep, &l.table, &l.ttft, &l.gaps, &l.heat, &l.tl, &l.right} {
		s.b = box{}
	}
	l.header.b, l.counts.b, l.tabs.b, l.help.b = box{w, 1}, box{w, countsH}, box{w, 1}, box{w, 1}
	if h >= 30 {
		l.header.b.h = 2
	}
	rs.help.SetWidth(w)
	if rs.help.ShowAll {
		l.help.b.h = lipgloss.Height(helpBar(&rs.help, rs.keys, rs.keys.Help, rs.keys.Quit, w))
	}
	if h < 8 {
		l.help.b.h = 0
	}
	rest := max(0, h-l.header.b.h-countsH-l.help.b.h-l.tabs.b.h)
	l.page.b = box{w, rest}
	if sp := rs.cfg.Sweep; sp != nil {
		l.sweep.b = box{w, sweepRows(len(sp.Levels), rest, w)}
		rest -= l.sweep.b.h
	}
	if rest >= 10 {
		l.tl.b = box{w, 4} // title, the stream, its markers, the axis
		rest -= 4
	}
	if rest >= 12 {
		l.heat.b = box{w, max(4, rest*35/100)}
		rest -= l.heat.b.h
	}
	top := grid{{&l.header}, {&l.counts}, {&l.tabs}}
	l.pageRows = append(top[:3:3], []*slot{&l.page}, []*slot{&l.help})
	if w >= 100 {
		rs.layoutWide(rest)
		l.rows = append(top, []*slot{&l.sweep}, []*slot{&l.table, &l.right}, []*slot{&l.heat}, []*slot{&l.tl}, []*slot{&l.help})
		return
	}
	l.table.b = box{w, rest}
	if l.heat.b.h > 0 && w >= 72 {
		// The TTFT beside the gaps, as the wide layout stacks them.
		l.gaps.b, l.ttft.b = box{w / 3, l.heat.b.h}, box{w / 3, l.heat.b.h}
		l.heat.b.w = w - 2*(w/3) - 2
	}
	l.rows = append(top, []*slot{&l.sweep}, []*slot{&l.table}, []*slot{&l.gaps, &l.ttft, &l.heat}, []*slot{&l.tl}, []*slot{&l.help})
}

// layoutWide puts the histograms in a column beside the table, TTFT over
// the gaps, in rest rows.
func (rs *runScreen) layoutWide(rest int) {
	l := &rs.lay
	w := rs.sh.width
	hw := 40
	switch {
	case w >= 200:
		hw = 64
	case w >= 120:
		hw = 44
	}
	l.table.b = box{w - hw - 1, rest}
	th := max(3, rest*2/5)
	if rest-th >= 3 {
		l.ttft.b, l.gaps.b = box{hw, th}, box{hw, rest - th}
	} else {
		l.gaps.b = box{hw, rest}
	}
	l.right.b = box{w - l.table.b.w - 1, rest}
	l.right.p = stack{&l.ttft, &l.gaps}
}

// restyle styles the table and the help from the palette.
func (rs *runScreen) restyle() {
	rs.timeline.Reset()
	rs.helpBar.reset()
	rs.table.SetStyles(views.StreamTableStyles(&rs.sh.styles.Views))
	rs.help.Styles = rs.sh.styles.Help
}

// snapshot is the run's state for the header and counts.
func (rs *runScreen) snapshot() views.RunSnapshot {
	p := &rs.cfg.Plan
	w := &rs.cfg.Workload
	end := rs.sh.now()
	if rs.state != views.RunRunning {
		end = rs.ended
	}
	pg := rs.progress
	return views.RunSnapshot{
		Target: w.Target, Format: w.Format, Model: w.Model, Load: rs.cfg.Load,
		State: rs.state, ElapsedMS: msSince(rs.startedAt, end),
		Runs: p.Runs, DurationMS: float64(p.Duration) / float64(time.Millisecond), OpenLoop: p.Rate > 0,
		Attempted: pg.Attempted.Load(), Admitted: pg.Admitted.Load(), InFlight: pg.InFlight.Load(),
		NotAdmitted: pg.NotAdmitted.Load(), Finished: pg.Finished.Load(), Warmup: pg.Warmup.Load(),
		LagMaxMS: float64(pg.LagMax.Load()) / float64(time.Millisecond), LagOver: pg.LagOver.Load(),
		Summary: &rs.sum,
	}
}

// render redraws the run screen. It draws the header and counts every
// frame, and the rest when their data changed. That is every frame while
// few streams run. Under load it is at most every heavyEvery of the frames
// in flight and every slowInterval, so the CPU stays with the probe.
func (rs *runScreen) render(all bool) {
	if !rs.sh.sized() {
		return
	}
	rs.m.redraws++
	now := rs.sh.now()
	frames := rs.liveFrames()
	every := heavyEvery(frames)
	idle := len(rs.live) <= busyStreams && frames <= bigRecord // the slow panels drawn at once
	if !idle {
		every = max(every, slowInterval)
	}
	// While finished records are held back (takeDone), the slow panels
	// wait for them too, up to doneMaxWait.
	held := len(rs.done) > 0 && now.Sub(rs.lastHeavy) < doneMaxWait
	heavy := all || (rs.heavy || rs.state == views.RunRunning && len(rs.live) > 0) && now.Sub(rs.lastHeavy) >= every && !held
	if heavy && rs.turn == 0 && rs.sumDirty {
		rs.sum = rs.agg.Summary(rs.cfg.Workload)
		rs.sumDirty = false
	}
	snap := rs.snapshot()
	counts := views.RunCounts(&snap, rs.sh.width, max(1, rs.sh.height/4), &rs.sh.styles.Views)
	if ch := lipgloss.Height(counts); all || ch != rs.lay.counts.b.h {
		rs.layout(ch)
		heavy, all = true, true
	}
	rs.renderFrame(&snap, counts, all)
	rs.renderSlow(all, heavy, idle, now)
}

// renderFrame draws what moves every frame. That is the header, the
// counts, the page bar, the help, the sweep when it changed, and page 2 or
// 3 when showing.
func (rs *runScreen) renderFrame(snap *views.RunSnapshot, counts string, all bool) {
	l := &rs.lay
	note := rs.sweepNote()
	switch rs.state {
	case views.RunDone, views.RunStopped:
		note = "q quits and prints the summary"
	}
	rs.renderSweep(all)
	l.sweep.redraw()
	l.header.view = views.RunHeader(snap, warned(rs.m.cfg.Warning, note), rs.sh.width, l.header.b.h, &rs.sh.styles.Views)
	l.counts.view = counts
	l.tabs.redraw()
	l.help.redraw()
	if rs.page != runPageStreams {
		l.page.redraw()
	}
}

// renderSlow draws the O(streams) panels. It draws all at once while the
// screen is not busy. Under load it draws a third at a time on successive
// ticks (each still every slowInterval or so), so no single tick keeps a
// core from the probe for long. In bench/load -tui one tick drawing them
// all took 3–11 ms.
func (rs *runScreen) renderSlow(all, heavy, idle bool, now time.Time) {
	l := &rs.lay
	if all || idle {
		if heavy {
			rs.lastHeavy, rs.heavy, rs.turn = now, false, 0
			l.table.redraw()
			rs.renderPlots()
			l.tl.redraw()
		}
		return
	}
	if rs.turn == 0 && !heavy {
		return
	}
	switch rs.turn {
	case 0:
		rs.lastHeavy, rs.heavy = now, false
		l.table.redraw()
	case 1:
		rs.renderPlots()
	case 2:
		l.tl.redraw()
	}
	rs.turn = (rs.turn + 1) % 3
}

// renderPlots redraws the histograms and the heatmap.
func (rs *runScreen) renderPlots() {
	l := &rs.lay
	l.ttft.redraw()
	l.gaps.redraw()
	l.heat.redraw()
	l.right.redraw()
}

// view joins the run screen's cached panels.
func (rs *runScreen) view() string {
	rows := rs.lay.rows
	if rs.page != runPageStreams {
		rows = rs.lay.pageRows
	}
	return textfmt.Fit(strings.Join(rows.compose(), "\n"), rs.sh.width, rs.sh.height)
}

// window is the table's rows, with the selection kept in view.
func (rs *runScreen) window(rows int) (first, last int) {
	n := len(rs.list)
	if rs.sel < rs.top {
		rs.top = rs.sel
	}
	if rs.sel >= rs.top+rows {
		rs.top = rs.sel - rows + 1
	}
	rs.top = max(0, min(rs.top, n-rows))
	return rs.top, min(n, rs.top+rows)
}

// The run screen's panels, each drawing itself into its box.
type (
	runTable      struct{ rs *runScreen }
	runTTFT       struct{ rs *runScreen }
	runGaps       struct{ rs *runScreen }
	runHeatmap    struct{ rs *runScreen }
	runTimeline   struct{ rs *runScreen }
	runSweepPanel struct{ rs *runScreen }
	runTabs       struct{ rs *runScreen }
	runPageBody   struct{ rs *runScreen }
)

func (p runTable) draw(b box) string {
	rs := p.rs
	if b.h < 3 {
		return ""
	}
	rows := b.h - 2 // the title and the column header
	first, last := rs.window(rows)
	cols := views.StreamColumns(b.w)
	body := make([]table.Row, 0, last-first)
	for _, s := range rs.list[first:last] {
		if s.phase != views.PhaseDone {
			rs.deriveLive(s)
			body = append(body, views.StreamRow(s.rec, s.phase, cols))
			continue
		}
		if s.row == nil || s.rowW != b.w {
			s.row, s.rowW = views.StreamRow(s.rec, s.phase, cols), b.w
		}
		body = append(body, s.row)
	}
	// Every setter renders the rows in view. With no rows, then with no
	// height, there are none until the last one, which renders them once.
	rs.table.SetRows(nil) // columns and rows change together
	rs.table.SetColumns(cols)
	rs.table.SetWidth(b.w)
	rs.table.SetHeight(0)
	rs.table.SetRows(body)
	rs.table.SetCursor(rs.sel - first)
	rs.table.SetHeight(rows + 1)
	// The table lists warmup streams too. Say how many, or its "85
	// finished" disagrees with the "80/80 recorded" above it.
	warmup := rs.progress.Warmup.Load()
	note := fmt.Sprintf("%d in flight · %d finished", len(rs.live), rs.progress.Finished.Load()+warmup)
	if warmup > 0 {
		note += fmt.Sprintf(" (%d warmup)", warmup)
	}
	if len(rs.list) > 0 {
		note += fmt.Sprintf(" · %d/%d", rs.sel+1, len(rs.list))
		if !rs.follow {
			note += " · end follows the newest"
		}
	}
	return title(&rs.sh.styles, "streams", note, b.w, true) + "\n" + textfmt.Fit(rs.table.View(), b.w, b.h-1)
}

// draw shows the TTFT histogram. It puts its p50 and p99 with their n and
// the streams in flight in its title, or the figures on a line of their own
// where the title has no room for both.
func (p runTTFT) draw(b box) string {
	rs := p.rs
	st := &rs.sh.styles
	note, figures := rs.ttftNote(false), views.TTFTFigures(stats.TTFT.Of(rs.sum.Metrics))
	_, inFlight, _ := strings.Cut(note, " · ") // the n is the figures'
	head, h := title(st, "ttft ms", figures+" · "+inFlight, b.w, false), b.h-1
	if textfmt.Width(" ttft ms  "+figures+" · "+inFlight) > b.w && b.h > 2 {
		line := st.Views.Value.Render(textfmt.FitParts(strings.ReplaceAll(figures, " · ", " "), b.w))
		head, h = title(st, "ttft ms", note, b.w, false)+"\n"+line, b.h-2
	}
	return head + "\n" + views.Histogram(&rs.ttft, math.Inf(1), rs.emptyTTFT(), b.w, h, &st.Views)
}

func (p runGaps) draw(b box) string {
	rs := p.rs
	return title(&rs.sh.styles, "gap ms", fmt.Sprintf("n=%d · log buckets", rs.gaps.N()), b.w, false) + "\n" +
		views.Histogram(&rs.gaps, rs.m.cfg.StallMS, rs.emptyGaps(), b.w, b.h-1, &rs.sh.styles.Views)
}

// draw shows the streams up to the table's last row, the selected one
// marked and kept in view.
func (p runHeatmap) draw(b box) string {
	rs := p.rs
	rows := max(1, b.h-2)
	_, last := rs.window(max(1, rs.lay.table.b.h-2))
	if rs.sel < last-rows {
		last = rs.sel + rows
	}
	first := max(0, last-rows)
	recs := make([]*record.Record, 0, last-first)
	for _, s := range rs.list[first:last] {
		rs.deriveLive(s)
		recs = append(recs, s.rec)
	}
	mode := "streams × frame index · b: time"
	if rs.byTime {
		mode = "streams × time · b: frame index"
	}
	if len(recs) < len(rs.list) { // the rows the table shows last, the rest left out
		mode = fmt.Sprintf("%d of %d · %s", len(recs), len(rs.list), mode)
	}
	return title(&rs.sh.styles, "heatmap", mode, b.w, false) + "\n" +
		views.RunHeatmap(recs, rs.sel-first, rs.m.cfg.StallMS, rs.byTime, b.w, b.h-1, &rs.sh.styles.Views)
}

// draw shows the selected stream's timeline.
func (p runTimeline) draw(b box) string {
	rs := p.rs
	st := &rs.sh.styles.Views
	if rs.sel >= len(rs.list) {
		return title(&rs.sh.styles, "timeline", "", b.w, false) + "\n" + textfmt.Fit(st.Dim.Render("no stream yet"), b.w, b.h-1)
	}
	sel := rs.list[rs.sel]
	rs.deriveLive(sel)
	cur := views.Stream{Run: sel.rec.Seq + 1, Phase: sel.phase, Record: sel.rec}
	if sel.phase != views.PhaseDone {
		cur.ElapsedMS = msSince(sel.start, rs.sh.now())
	}
	return title(&rs.sh.styles, "timeline", views.StreamCaption(sel.rec, sel.phase, st)+st.Dim.Render(" · enter opens it"), b.w, false) + "\n" +
		textfmt.Fit(rs.timeline.Timeline(&cur, nil, 0, b.w, b.h-1, st), b.w, b.h-1)
}

func (p runSweepPanel) draw(box) string { return p.rs.sweep.view }

// stack is slots one above another in one box. They are drawn already.
type stack []*slot

func (s stack) draw(box) string {
	var parts []string
	for _, c := range s {
		if c.b.h > 0 {
			parts = append(parts, c.view)
		}
	}
	return strings.Join(nonEmpty(parts), "\n")
}

// liveFrames counts the frames of the streams in flight. The panels that
// derive them are drawn at most every heavyEvery of them, as the stream
// screen does for one long stream (10,000 frames/s in 20 streams took 13 %
// of a core drawn every frame, BenchmarkRunScreenCost).
func (rs *runScreen) liveFrames() int {
	n := 0
	for _, s := range rs.live {
		n += len(s.rec.Frames)
	}
	return n
}
