package views

import (
	"fmt"
	"math"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
)

// Glyphs of the timeline, one cell each, distinct without colour.
const (
	glyphText      = '│'
	glyphReasoning = '┊'
	glyphTool      = '┼'
	glyphBurst     = '█'
	glyphRole      = '○'
	glyphPing      = '·'
	glyphMeta      = '◇'
	glyphEnd       = '■'
	glyphError     = '✖'
	glyphWait      = '╌'
	glyphStall     = '━'
	glyphMarker    = '▲'
	labelWidth     = 5 // "#12  "
)

// TimelineLegend explains the timeline's glyphs in width cells. It shows as
// many as fit whole, in this order, since a glyph cut in half explains nothing.
func TimelineLegend(width int, st *Styles) string {
	items := []struct {
		g    rune
		s    lipgloss.Style
		what string
	}{
		{glyphText, st.Text, "text"}, {glyphReasoning, st.Reasoning, "reasoning"}, {glyphTool, st.Tool, "tool"},
		{glyphBurst, st.Burst, "one read"}, {glyphRole, st.Role, "role"}, {glyphPing, st.Ping, "ping"},
		{glyphMeta, st.Meta, "usage"}, {glyphEnd, st.End, "end"}, {glyphError, st.Error, "error"},
		{glyphStall, st.StallMid, "stall"},
	}
	out := ""
	for _, it := range items {
		part := it.s.Render(string(it.g)) + st.Dim.Render(" "+it.what)
		if out != "" {
			part = "  " + part
		}
		if lipgloss.Width(out+part) > width {
			break
		}
		out += part
	}
	return out
}

// axis maps times to cells.
type axis struct {
	from, to float64
	cells    int
}

func (a axis) cell(t float64) int {
	if t < a.from || a.to <= a.from {
		return -1
	}
	c := int((t - a.from) / (a.to - a.from) * float64(a.cells))
	return min(c, a.cells-1)
}

// Timeline draws the current stream and, above it, earlier runs in a dimmer
// style on the same time axis, so a stall that recurs lines up. zoomMS > 0
// shows only the last zoomMS of the current stream instead of all of it.
func Timeline(cur *Stream, earlier []*record.Record, zoomMS float64, width, height int, st *Styles) string {
	return (*TimelineCache)(nil).Timeline(cur, earlier, zoomMS, width, height, st)
}

// Timeline draws as the function Timeline does, keeping in c what the next
// redraw can reuse.
func (c *TimelineCache) Timeline(cur *Stream, earlier []*record.Record, zoomMS float64, width, height int, st *Styles) string {
	plotW := width - labelWidth
	if plotW < 4 || height < 1 {
		return textfmt.Fit("", width, height)
	}
	end := cur.endMS()
	for _, r := range earlier {
		if zoomMS <= 0 {
			end = max(end, r.DurationMS)
		}
	}
	ax := axis{to: AxisEnd(end), cells: plotW}
	if zoomMS > 0 {
		ax.from = max(0, end-zoomMS)
		ax.to = max(end, ax.from+zoomMS)
	}
	c.begin(ax, st)
	lines := c.lines(cur, earlier, ax, height-1, st)
	if height >= 2 {
		lines = append(lines, c.axis(ax, st))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, len(lines))
}

// AxisEnd rounds the right edge of a time axis up to a tick, so the axis
// rescales in steps rather than on every frame.
func AxisEnd(endMS float64) float64 {
	step := niceStep(max(endMS, 100) / 8)
	return math.Ceil(max(endMS, 100)/step) * step
}

// EndMS is the right edge of a stream on a time axis. That is its duration,
// or while it runs, the time so far.
func EndMS(s *Stream) float64 { return s.endMS() }

// TimelineLane draws a stream as Timeline does but without the axis row, on
// an axis from 0 to toMS (AxisEnd of the latest end) that several lanes
// share. That way targets streaming at once line up. TimeAxis draws that
// axis. The current stream's row comes last, its markers under it when
// height allows, and earlier runs above it.
func TimelineLane(cur *Stream, earlier []*record.Record, toMS float64, width, height int, st *Styles) string {
	return (*TimelineCache)(nil).Lane(cur, earlier, toMS, width, height, st)
}

// Lane draws as TimelineLane does, keeping in c what the next redraw can
// reuse.
func (c *TimelineCache) Lane(cur *Stream, earlier []*record.Record, toMS float64, width, height int, st *Styles) string {
	plotW := width - labelWidth
	if plotW < 4 || height < 1 {
		return textfmt.Fit("", width, height)
	}
	ax := axis{to: toMS, cells: plotW}
	c.begin(ax, st)
	lines := c.lines(cur, earlier, ax, height, st)
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// TimeAxis is the axis row under lanes drawn with TimelineLane.
func TimeAxis(toMS float64, width int, st *Styles) string {
	plotW := width - labelWidth
	if plotW < 4 {
		return textfmt.Fit("", width, 1)
	}
	return st.Dim.Render(textfmt.PadRight("", labelWidth)) + axisRow(axis{to: toMS, cells: plotW}, st).String()
}

// TimelineEarlierRows is how many of n earlier runs Timeline draws in
// height rows (the latest ones), for a title to say what it left out.
func TimelineEarlierRows(n, height int) int { return earlierRows(n, height-1) }

// earlierRows leaves the current stream's row and its markers' row.
func earlierRows(n, height int) int { return max(0, min(n, height-2)) }

// lines are the rows of the earlier runs, the current stream's row and,
// from two rows, its markers, in at most height rows.
func (c *TimelineCache) lines(cur *Stream, earlier []*record.Record, ax axis, height int, st *Styles) []string {
	rows := earlierRows(len(earlier), height)
	var lines []string
	for _, r := range earlier[len(earlier)-rows:] {
		lines = append(lines, c.earlierRow(r, ax, st))
	}
	end := cur.endMS()
	row, stallLabels := c.liveRow(cur, end, ax, st)
	if gap, ok := LiveStall(cur); ok {
		stallLabels = append(stallLabels, liveStallRow(row, end-gap, gap, cur.Hops, ax, st)...)
	}
	lines = append(lines, st.Value.Render(textfmt.PadRight(RunLabel(cur.Run, cur.Record), labelWidth))+c.string(row))
	if height >= 2 {
		lines = append(lines, strings.Repeat(" ", labelWidth)+c.string(markerRow(cur.Record, stallLabels, ax, st)))
	}
	return lines
}

// RunLabel is a run's row label, #n as every screen numbers it (n is
// seq+1). It carries a w when r is a warmup stream, which every figure
// leaves out, since saved records show it beside the measured runs.
func RunLabel(n int, r *record.Record) string {
	if r != nil && r.Phase == record.PhaseWarmup {
		return fmt.Sprintf("#%dw", n)
	}
	return fmt.Sprintf("#%d", n)
}

// LiveStall is the stall in progress. It is how long a streaming stream has
// gone without content since its last content frame, once that reaches the
// stall threshold. It grows until the next frame ends it.
func LiveStall(s *Stream) (gapMS float64, ok bool) {
	r := s.Record
	if s.Phase != PhaseStreaming || r.TTFTMS == nil || r.StallMS <= 0 {
		return 0, false
	}
	gap := s.ElapsedMS - lastContent(r)
	return gap, gap >= r.StallMS
}

// liveStallRow draws the stall in progress from its start to now, with a
// label that says it is still growing. With a relay's times the label also
// says who holds it ("⏸ 745ms… path holds").
func liveStallRow(row cellRow, at, gap float64, h *hops.Stream, ax axis, st *Styles) []stallLabel {
	a, b := ax.cell(at)+1, ax.cell(at+gap)
	for c := max(a, 0); c <= b; c++ {
		row.set(c, glyphStall, &st.Stall)
	}
	text := "⏸ " + textfmt.MS(gap) + "…"
	if h != nil && h.Holding != "" {
		text += " " + h.Holding + " holds"
	}
	if n := len([]rune(text)); b-a+1 >= n+2 {
		row.put(a+(b-a+1-n)/2, text, &st.Stall, func(int) bool { return true })
		return nil
	}
	return []stallLabel{{cell: max(a, 0), text: text}}
}

// stallLabel is a stall's duration label that did not fit inside its span.
type stallLabel struct {
	cell int
	text string
	mid  bool
}

// The priorities of a content frame's glyph and a burst's.
const (
	prioContent = 4
	prioBurst   = 5
)

// priority orders what a cell shows when several frames share it.
func glyphOf(f *record.Frame, burst bool, st *Styles) (rune, *lipgloss.Style, int) {
	switch f.Kind {
	case adapters.KindError:
		return glyphError, &st.Error, 7
	case adapters.KindEnd:
		return glyphEnd, &st.End, 6
	case adapters.KindContent:
		switch {
		case burst:
			return glyphBurst, &st.Burst, prioBurst
		case f.Channel == adapters.ChannelReasoning:
			return glyphReasoning, &st.Reasoning, prioContent
		case f.Channel == adapters.ChannelTool:
			return glyphTool, &st.Tool, prioContent
		}
		return glyphText, &st.Text, prioContent
	case adapters.KindUsage, adapters.KindMeta, adapters.KindRaw:
		return glyphMeta, &st.Meta, 3
	case adapters.KindRole:
		return glyphRole, &st.Role, 2
	}
	return glyphPing, &st.Ping, 1
}

// timelineRow draws a stream's lane with the wait, the stalls and the
// frames. A stall holds its duration when it fits. Otherwise the duration is
// returned as a label for the marker row. An earlier run is dimmed except
// for its stalls. With h (a relay's view of the stream) each stall says its
// owner.
func timelineRow(r *record.Record, h *hops.Stream, end float64, earlier bool, ax axis, st *Styles) (cellRow, []stallLabel) {
	cells := newFrameCells(ax.cells)
	cells.draw(r.Frames, 0, ax, st)
	return laneRow(r, h, end, earlier, cells, ax, st)
}

// laneRow draws a stream's lane with its frames already drawn in cells.
func laneRow(r *record.Record, h *hops.Stream, end float64, earlier bool, cells frameCells, ax axis, st *Styles) (cellRow, []stallLabel) {
	row := newCellRow(ax.cells, ' ', nil)
	waitRow(row, r, end, ax, st)
	labels := stallsRow(row, r, h, ax, st)
	cells.onto(row)
	brokenEnd(row, r, end, ax, st)
	if earlier {
		for i := range row.st {
			if row.st[i] != nil && row.r[i] != glyphStall {
				row.st[i] = &st.Earlier
			}
		}
	}
	return row, labels
}

// waitRow draws the wait before the first content, the empty bubble.
func waitRow(row cellRow, r *record.Record, end float64, ax axis, st *Styles) {
	waitEnd := end
	if r.TTFTMS != nil {
		waitEnd = *r.TTFTMS
	}
	wc := ax.cell(waitEnd)
	if waitEnd >= ax.to {
		wc = ax.cells
	}
	for c := max(ax.cell(0), 0); c < wc; c++ {
		row.set(c, glyphWait, &st.Wait)
	}
}

// stallsRow draws the stalls, each with its duration inside it when it
// fits. With h the duration also names the owner ("⏸ 700ms upstream"). The
// labels that do not fit are returned.
func stallsRow(row cellRow, r *record.Record, h *hops.Stream, ax axis, st *Styles) []stallLabel {
	var labels []stallLabel
	for _, s := range r.Stalls {
		a, b := ax.cell(s.AtMS)+1, ax.cell(s.AtMS+s.GapMS)-1
		if ax.cell(s.AtMS) < 0 {
			a = 0
		}
		stl := &st.Stall
		if s.MidSentence {
			stl = &st.StallMid
		}
		for c := a; c <= b; c++ {
			row.set(c, glyphStall, stl)
		}
		text := "⏸ " + textfmt.MS(s.GapMS)
		if owned, ok := h.StallAt(s.Frame); ok {
			text = "⏸ " + owned.Label(textfmt.MS)
		}
		n := len([]rune(text))
		if b-a+1 >= n+2 {
			row.put(a+(b-a+1-n)/2, text, stl, func(int) bool { return true })
		} else if b >= 0 {
			labels = append(labels, stallLabel{cell: max(a, 0), text: text, mid: s.MidSentence})
		}
	}
	return labels
}

// frameCells are frames drawn on an axis. Each cell has its glyph and style,
// and the priority of the frame that took it, 0 when no frame did.
type frameCells struct {
	prio []int
	r    []rune
	st   []*lipgloss.Style
}

func newFrameCells(n int) frameCells {
	return frameCells{prio: make([]int, n), r: make([]rune, n), st: make([]*lipgloss.Style, n)}
}

// copyFrom makes c what o is (both of one width).
func (c frameCells) copyFrom(o frameCells) {
	copy(c.prio, o.prio)
	copy(c.r, o.r)
	copy(c.st, o.st)
}

// onto draws the cells frames took into row, over what was there.
func (c frameCells) onto(row cellRow) {
	for i, p := range c.prio {
		if p > 0 {
			row.set(i, c.r[i], c.st[i])
		}
	}
}

// draw draws frames[from:] (from the first frame of a read), the most
// telling where several share a cell. Frames of one read arrived
// together, so content sharing a read is a burst. Reads only grow, so a
// read's frames are one run of the slice. The cells after drawing a read
// depend only on the cells before it and its frames.
func (c frameCells) draw(frames []record.Frame, from int, ax axis, st *Styles) {
	for i := from; i < len(frames); {
		j, content := i, 0
		for ; j < len(frames) && frames[j].Read == frames[i].Read; j++ {
			if frames[j].IsContent() {
				content++
			}
		}
		for k := i; k < j; k++ {
			c.frame(&frames[k], content, ax, st)
		}
		i = j
	}
}

// frame draws one frame of a read that has content frames in all.
func (c frameCells) frame(f *record.Frame, content int, ax axis, st *Styles) {
	x := ax.cell(f.TMS)
	if x < 0 {
		return
	}
	g, s, p := glyphOf(f, f.IsContent() && content > 1, st)
	if f.Kind == adapters.KindEnd && content > 0 && (c.prio[x] == prioContent || c.prio[x] == prioBurst) {
		// The end marker would hide the content that came in its
		// read, since a buffered answer is one burst and its end in
		// one cell. It takes the next cell instead. At the axis's
		// end it gives way, and the header says how the stream ended.
		if x+1 == ax.cells || c.prio[x+1] != 0 {
			return
		}
		x++
	}
	if p > c.prio[x] {
		c.prio[x], c.r[x], c.st[x] = p, g, s
	}
}

// brokenEnd draws how a stream that failed with no error frame (a reset,
// a timeout) ended. The silence after its last frame is drawn as a wait and
// ✖ marks where it broke. That keeps the second an idle timeout waited on
// the lane once the live stall that showed it is gone.
func brokenEnd(row cellRow, r *record.Record, end float64, ax axis, st *Styles) {
	if r.Status != record.StatusFailed || end < ax.from {
		return
	}
	from := ax.cell(0)
	for i := range r.Frames {
		if r.Frames[i].Kind == adapters.KindError {
			return // the frame says where
		}
		from = ax.cell(r.Frames[i].TMS) + 1
	}
	c := ax.cell(end)
	if c < 0 {
		return
	}
	for x := max(from, 0); x < c; x++ {
		if row.r[x] == ' ' {
			row.set(x, glyphWait, &st.Wait)
		}
	}
	if row.r[c] != ' ' && row.r[c] != glyphWait {
		c++ // the last frame's cell, so the mark goes beside it
	}
	if c < ax.cells && (row.r[c] == ' ' || row.r[c] == glyphWait) {
		row.set(c, glyphError, &st.Error)
	}
}

// markerRow marks TTFT and the last content under the current stream and
// carries the stall labels that did not fit in their spans.
func markerRow(r *record.Record, labels []stallLabel, ax axis, st *Styles) cellRow {
	row := newCellRow(ax.cells, ' ', nil)
	free := func(i int) bool { return row.r[i] == ' ' && (i == 0 || row.r[i-1] == ' ') }
	for _, l := range labels {
		s := &st.Stall
		if l.mid {
			s = &st.StallMid
		}
		row.put(l.cell, l.text, s, free)
	}
	mark := func(t float64, name string) {
		c := ax.cell(t)
		if c < 0 {
			return
		}
		text := string(glyphMarker) + name + " " + textfmt.MS(t)
		if !row.put(c, text, &st.Marker, free) {
			// Too close to the right edge, so end the label at the mark.
			n := len([]rune(text))
			text = name + " " + textfmt.MS(t) + string(glyphMarker)
			// Else draw the bare mark, where it touches no other label. Beside
			// the first mark, the last content's label would read "▲ttft 1▲2ms".
			if !row.put(c-n+1, text, &st.Marker, free) && free(c) && (c+1 == ax.cells || row.r[c+1] == ' ') {
				row.set(c, glyphMarker, &st.Marker)
			}
		}
	}
	if r.TTFTMS != nil {
		mark(*r.TTFTMS, "ttft")
		if last := lastContent(r); last > *r.TTFTMS {
			mark(last, "last")
		}
	}
	return row
}

func lastContent(r *record.Record) float64 {
	for i := len(r.Frames) - 1; i >= 0; i-- {
		if r.Frames[i].IsContent() {
			return r.Frames[i].TMS
		}
	}
	return 0
}

// axisRow labels the time axis at 1-2-5 steps, about every 12 cells.
func axisRow(ax axis, st *Styles) cellRow {
	row := newCellRow(ax.cells, '─', &st.Dim)
	span := ax.to - ax.from
	step := niceStep(span / max(1, float64(ax.cells)/12))
	free := func(i int) bool { return row.r[i] == '─' && (i == 0 || row.r[i-1] == '─') }
	for t := math.Ceil(ax.from/step) * step; t <= ax.to; t += step {
		row.put(ax.cell(t), axisLabel(t), &st.Label, free)
	}
	return row
}

func axisLabel(t float64) string {
	if t == 0 {
		return "0"
	}
	return textfmt.MS(t)
}
