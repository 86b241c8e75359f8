package views

import (
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
)

// TimelineCache keeps what one redraw of a timeline leaves for the next:
// the rows of finished runs, the cells of a live stream's frames up to its
// last read, the axis row, and the styled runs of cells drawn last time.
// A live screen redraws its timeline 30 times a second while the stream
// grows by thousands of frames; with the cache a redraw draws only the
// frames that came since. A screen keeps one per timeline it draws and
// calls Reset when its styles change in place; its zero value is ready,
// and a nil cache draws everything every time.
type TimelineCache struct {
	ax axis
	st *Styles

	earlier map[earlierKey]string // this redraw's rows of finished runs
	last    map[earlierKey]string // the redraw before's
	axisRow string

	// The live stream's frames before its last read, drawn; done counts
	// them. first and at tell the stream's frames apart from another's.
	live  frameCells
	first *record.Frame
	at    frameMark
	done  int
	work  frameCells // the live row's cells this redraw

	segs, segsLast map[segment]string
}

// earlierKey is a finished run as its row draws it.
type earlierKey struct {
	r      *record.Record
	frames int
	durMS  float64
}

// frameMark is what tells a frame apart from another at its index.
type frameMark struct {
	tms  float64
	read int
	kind record.Kind
}

func markOf(f *record.Frame) frameMark { return frameMark{f.TMS, f.Read, f.Kind} }

// segment is a run of cells of one style, as cellRow.String renders it.
type segment struct {
	st   *lipgloss.Style
	text string
}

// Reset forgets everything drawn, for styles that changed in place.
func (c *TimelineCache) Reset() {
	if c != nil {
		*c = TimelineCache{}
	}
}

// begin starts a redraw on ax with st, forgetting what was drawn on
// another axis or with other styles.
func (c *TimelineCache) begin(ax axis, st *Styles) {
	if c == nil {
		return
	}
	if c.ax != ax || c.st != st {
		*c = TimelineCache{ax: ax, st: st}
	}
	c.last, c.earlier = c.earlier, c.last
	clear(c.earlier)
	if c.earlier == nil {
		c.earlier = map[earlierKey]string{}
	}
	c.segsLast, c.segs = c.segs, c.segsLast
	clear(c.segs)
	if c.segs == nil {
		c.segs = map[segment]string{}
	}
}

// earlierRow is a finished run's row, label included: drawn once for an
// axis, as a finished record no longer changes.
func (c *TimelineCache) earlierRow(r *record.Record, ax axis, st *Styles) string {
	draw := func() string {
		label := st.Dim.Render(textfmt.PadRight(RunLabel(r.Seq+1, r), labelWidth))
		row, _ := timelineRow(r, nil, r.DurationMS, true, ax, st)
		return label + row.String()
	}
	if c == nil {
		return draw()
	}
	k := earlierKey{r, len(r.Frames), r.DurationMS}
	s, ok := c.last[k]
	if !ok {
		s = draw()
	}
	c.earlier[k] = s
	return s
}

// liveRow is the current stream's lane. Its frames before the last read
// are drawn once: a read that a later one follows is whole.
func (c *TimelineCache) liveRow(cur *Stream, end float64, ax axis, st *Styles) (cellRow, []stallLabel) {
	r := cur.Record
	if c == nil {
		return timelineRow(r, cur.Hops, end, false, ax, st)
	}
	fs := r.Frames
	if c.live.prio == nil || len(fs) < c.done || c.done > 0 && (&fs[0] != c.first || markOf(&fs[c.done-1]) != c.at) {
		c.live, c.work, c.done = newFrameCells(ax.cells), newFrameCells(ax.cells), 0
	}
	last := len(fs)
	for last > c.done && fs[last-1].Read == fs[len(fs)-1].Read {
		last--
	}
	if last > c.done {
		c.live.draw(fs[:last], c.done, ax, st)
		c.done, c.first, c.at = last, &fs[0], markOf(&fs[last-1])
	}
	c.work.copyFrom(c.live)
	c.work.draw(fs, c.done, ax, st)
	return laneRow(r, cur.Hops, end, false, c.work, ax, st)
}

// axis is the time axis's row, label column included.
func (c *TimelineCache) axis(ax axis, st *Styles) string {
	if c != nil && c.axisRow != "" {
		return c.axisRow
	}
	s := st.Dim.Render(textfmt.PadRight("", labelWidth)) + axisRow(ax, st).String()
	if c != nil {
		c.axisRow = s
	}
	return s
}

// string renders row, reusing the styled runs of cells drawn this redraw
// or the one before.
func (c *TimelineCache) string(row cellRow) string {
	if c == nil {
		return row.String()
	}
	return row.render(func(st *lipgloss.Style, text string) string {
		k := segment{st, text}
		s, ok := c.segs[k]
		if !ok {
			if s, ok = c.segsLast[k]; !ok {
				s = st.Render(text)
			}
			c.segs[k] = s
		}
		return s
	})
}
