package tui

import (
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/bubbles/v2/table"
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/views"
)

// runLayout places the run screen's panels; a box's h counts its title
// line, and 0 hides it. Everything shows at 120×40; below 100 columns the
// TTFT histogram goes and the gap histogram sits beside the heatmap; as
// rows run out the heatmap goes, then the timeline.
type runLayout struct {
	headerH, countsH, helpH int
	tabsH                   int // the page bar
	table, ttft, gaps, heat box
	tl                      box
	sweep                   box // a sweep's per-level panel
}

// runPanels are the rendered strings composeRun joins, titles included.
type runPanels struct {
	header, counts, table, ttft, gaps, heat, tl string
}

func (m *Model) layoutRun(countsH int) {
	rs := m.rs
	w, h := m.width, m.height
	l := runLayout{headerH: 1, helpH: 1, countsH: countsH, tabsH: 1}
	if h >= 30 {
		l.headerH = 2
	}
	rs.help.SetWidth(w)
	if rs.help.ShowAll {
		l.helpH = lipgloss.Height(helpBar(&rs.help, rs.keys, rs.keys.Help, rs.keys.Quit, m.width))
	}
	if h < 8 {
		l.helpH = 0
	}
	rest := max(0, h-l.headerH-l.countsH-l.helpH-l.tabsH)
	if sp := rs.cfg.Sweep; sp != nil {
		l.sweep = box{w, sweepRows(len(sp.Levels), rest, w)}
		rest -= l.sweep.h
	}
	if rest >= 10 {
		l.tl = box{w, 4} // title, the stream, its markers, the axis
		rest -= 4
	}
	if rest >= 12 {
		l.heat = box{w, max(4, rest*35/100)}
		rest -= l.heat.h
	}
	switch {
	case w >= 100:
		hw := 40
		switch {
		case w >= 200:
			hw = 64
		case w >= 120:
			hw = 44
		}
		l.table = box{w - hw - 1, rest}
		th := max(3, rest*2/5)
		if rest-th >= 3 {
			l.ttft, l.gaps = box{hw, th}, box{hw, rest - th}
		} else {
			l.gaps = box{hw, rest}
		}
	default:
		l.table = box{w, rest}
		if l.heat.h > 0 && w >= 72 {
			l.gaps = box{w / 2, l.heat.h}
			l.heat.w = w - w/2 - 1
		}
	}
	rs.lay = l
}

// setRunStyles styles the table and the help from the palette.
func (m *Model) setRunStyles() {
	m.rs.table.SetStyles(views.StreamTableStyles(&m.styles.Views))
	m.rs.help.Styles = m.styles.Help
}

// snapshot is the run's state for the header and counts.
func (m *Model) snapshot() views.RunSnapshot {
	rs := m.rs
	p := &rs.cfg.Plan
	w := &rs.cfg.Workload
	end := m.now()
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

// renderRun redraws the run screen: the header and counts every frame,
// the rest when their data changed — every frame while few streams run,
// at most every slowInterval under load, so the CPU stays with the probe.
func (m *Model) renderRun(all bool) {
	rs := m.rs
	w, h := m.width, m.height
	if w <= 0 || h <= 0 {
		return
	}
	m.redraws++
	now := m.now()
	every := time.Duration(0)
	if len(rs.live) > busyStreams || rs.liveFrames() > bigRecord {
		every = slowInterval
	}
	// While finished records are held back (takeDone), the slow panels
	// wait for them too, up to doneMaxWait.
	held := len(rs.done) > 0 && now.Sub(rs.lastHeavy) < doneMaxWait
	heavy := all || (rs.heavy || rs.state == views.RunRunning && len(rs.live) > 0) && now.Sub(rs.lastHeavy) >= every && !held
	if heavy && rs.slot == 0 && rs.sumDirty {
		rs.sum = rs.agg.Summary(rs.cfg.Workload)
		rs.sumDirty = false
	}
	st := &m.styles.Views
	snap := m.snapshot()
	counts := views.RunCounts(&snap, w, max(1, h/4), st)
	if ch := lipgloss.Height(counts); all || ch != rs.lay.countsH {
		m.layoutRun(ch)
		heavy, all = true, true
	}
	l := &rs.lay
	note := rs.sweepNote()
	switch rs.state {
	case views.RunDone, views.RunStopped:
		note = "q quits and prints the summary"
	}
	m.renderSweep(all)
	rs.panels.header = views.RunHeader(&snap, note, w, l.headerH, st)
	rs.panels.counts = counts
	if all || every == 0 {
		if heavy {
			rs.lastHeavy, rs.heavy, rs.slot = now, false, 0
			m.renderRunTable()
			m.renderRunPlots()
			m.renderRunTimeline()
		}
		return
	}
	// Under load the slow panels are drawn a third at a time on successive
	// ticks (each still every slowInterval or so), so no single tick keeps
	// a core from the probe for long: in bench/load -tui one tick drawing
	// them all took 3–11 ms.
	if rs.slot == 0 && !heavy {
		return
	}
	switch rs.slot {
	case 0:
		rs.lastHeavy, rs.heavy = now, false
		m.renderRunTable()
	case 1:
		m.renderRunPlots()
	case 2:
		m.renderRunTimeline()
	}
	rs.slot = (rs.slot + 1) % 3
}

// window is the table's rows: the selection kept in view.
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

func (m *Model) renderRunTable() {
	rs := m.rs
	l := &rs.lay
	if l.table.h < 3 {
		rs.panels.table = views.Fit("", l.table.w, l.table.h)
		return
	}
	rows := l.table.h - 2 // the title and the column header
	first, last := rs.window(rows)
	cols := views.StreamColumns(l.table.w)
	body := make([]table.Row, 0, last-first)
	for _, s := range rs.list[first:last] {
		if s.phase != views.PhaseDone {
			m.deriveLive(s)
			body = append(body, views.StreamRow(s.rec, s.phase, cols))
			continue
		}
		if s.row == nil || s.rowW != l.table.w {
			s.row, s.rowW = views.StreamRow(s.rec, s.phase, cols), l.table.w
		}
		body = append(body, s.row)
	}
	// Every setter renders the rows in view: with no rows, then with no
	// height, there are none until the last one, which renders them once.
	rs.table.SetRows(nil) // columns and rows change together
	rs.table.SetColumns(cols)
	rs.table.SetWidth(l.table.w)
	rs.table.SetHeight(0)
	rs.table.SetRows(body)
	rs.table.SetCursor(rs.sel - first)
	rs.table.SetHeight(rows + 1)
	note := fmt.Sprintf("%d in flight · %d finished", len(rs.live), rs.progress.Finished.Load()+rs.progress.Warmup.Load())
	if len(rs.list) > 0 {
		note += fmt.Sprintf(" · %d/%d", rs.sel+1, len(rs.list))
		if !rs.follow {
			note += " · end follows the newest"
		}
	}
	rs.panels.table = m.title("streams", note, l.table.w, true) + "\n" + views.Fit(rs.table.View(), l.table.w, l.table.h-1)
}

func (m *Model) renderRunPlots() {
	rs := m.rs
	l := &rs.lay
	st := &m.styles.Views
	if l.ttft.h > 0 {
		rs.panels.ttft = m.title("ttft ms", rs.ttftNote(false), l.ttft.w, false) + "\n" +
			views.Histogram(&rs.ttft, math.Inf(1), "no first token yet", l.ttft.w, l.ttft.h-1, st)
	}
	if l.gaps.h > 0 {
		rs.panels.gaps = m.title("gap ms", fmt.Sprintf("n=%d · log buckets", rs.gaps.N()), l.gaps.w, false) + "\n" +
			views.Histogram(&rs.gaps, m.cfg.StallMS, "no gaps yet: they need two content frames", l.gaps.w, l.gaps.h-1, st)
	}
	if l.heat.h > 0 {
		// The streams up to the table's last row, the selected one marked
		// and kept in view.
		rows := max(1, l.heat.h-2)
		_, last := rs.window(max(1, l.table.h-2))
		if rs.sel < last-rows {
			last = rs.sel + rows
		}
		first := max(0, last-rows)
		recs := make([]*record.Record, 0, last-first)
		for _, s := range rs.list[first:last] {
			m.deriveLive(s)
			recs = append(recs, s.rec)
		}
		mode := "streams × frame index · b: time"
		if rs.byTime {
			mode = "streams × time · b: frame index"
		}
		rs.panels.heat = m.title("heatmap", mode, l.heat.w, false) + "\n" +
			views.RunHeatmap(recs, rs.sel-first, m.cfg.StallMS, rs.byTime, l.heat.w, l.heat.h-1, st)
	}
}

// renderRunTimeline draws the selected stream's timeline.
func (m *Model) renderRunTimeline() {
	rs := m.rs
	l := &rs.lay
	st := &m.styles.Views
	var sel *runStream
	if rs.sel < len(rs.list) {
		sel = rs.list[rs.sel]
		m.deriveLive(sel)
	}
	if l.tl.h > 0 {
		if sel == nil {
			rs.panels.tl = m.title("timeline", "", l.tl.w, false) + "\n" + views.Fit(st.Dim.Render("no stream yet"), l.tl.w, l.tl.h-1)
			return
		}
		cur := views.Stream{Run: sel.rec.Seq + 1, Phase: sel.phase, Record: sel.rec}
		if sel.phase != views.PhaseDone {
			cur.ElapsedMS = msSince(sel.start, m.now())
		}
		rs.panels.tl = m.title("timeline", views.StreamCaption(sel.rec, sel.phase, st)+st.Dim.Render(" · enter opens it"), l.tl.w, false) + "\n" +
			views.Fit(views.Timeline(&cur, nil, 0, l.tl.w, l.tl.h-1, st), l.tl.w, l.tl.h-1)
	}
}

// composeRun joins the run screen's cached panels.
func (m *Model) composeRun() string {
	rs := m.rs
	l := &rs.lay
	parts := []string{rs.panels.header, rs.panels.counts, m.runTabs()}
	if rs.page != runPageStreams {
		body := m.runPageBody(m.width, max(0, m.height-l.headerH-l.countsH-l.tabsH-l.helpH))
		parts = append(parts, body)
		if l.helpH > 0 {
			parts = append(parts, helpBar(&rs.help, rs.keys, rs.keys.Help, rs.keys.Quit, m.width))
		}
		return views.Fit(strings.Join(nonEmpty(parts), "\n"), m.width, m.height)
	}
	if l.sweep.h > 0 {
		parts = append(parts, views.Fit(rs.sweep.view, l.sweep.w, l.sweep.h))
	}
	if l.table.h > 0 {
		mid := rs.panels.table
		if l.table.w < m.width && (l.ttft.h > 0 || l.gaps.h > 0) {
			right := strings.Join(nonEmpty([]string{fitBox(rs.panels.ttft, l.ttft), fitBox(rs.panels.gaps, l.gaps)}), "\n")
			mid = views.JoinColumns(" ", views.Fit(mid, l.table.w, l.table.h), views.Fit(right, m.width-l.table.w-1, l.table.h))
		}
		parts = append(parts, mid)
	}
	if l.heat.h > 0 {
		heat := views.Fit(rs.panels.heat, l.heat.w, l.heat.h)
		if l.heat.w < m.width && l.gaps.h > 0 && l.table.w == m.width {
			heat = views.JoinColumns(" ", views.Fit(rs.panels.gaps, l.gaps.w, l.gaps.h), heat)
		}
		parts = append(parts, heat)
	}
	if l.tl.h > 0 {
		parts = append(parts, views.Fit(rs.panels.tl, l.tl.w, l.tl.h))
	}
	if l.helpH > 0 {
		parts = append(parts, helpBar(&rs.help, rs.keys, rs.keys.Help, rs.keys.Quit, m.width))
	}
	return views.Fit(strings.Join(nonEmpty(parts), "\n"), m.width, m.height)
}

// fitBox fits a panel to its box ("" when hidden).
func fitBox(s string, b box) string {
	if b.h <= 0 {
		return ""
	}
	return views.Fit(s, b.w, b.h)
}

// liveFrames counts the frames of the streams in flight: beyond bigRecord
// the panels that derive them are drawn at most every slowInterval, as the
// stream screen does for one long stream (10,000 frames/s in 20 streams
// took 13 % of a core drawn every frame, BenchmarkRunScreenCost).
func (rs *runScreen) liveFrames() int {
	n := 0
	for _, s := range rs.live {
		n += len(s.rec.Frames)
	}
	return n
}
