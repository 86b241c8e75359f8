package tui

import (
	"fmt"
	"slices"
	"strings"
	"sync"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/sweep"
	"github.com/driplab/drip/views"
)

// sweepPanel is the run screen's view of a sweep. It holds the result so
// far, as the sweep's goroutine last reported it, and the panel drawn
// from it.
type sweepPanel struct {
	mu    sync.Mutex
	res   sweep.Result // a copy, as the sweep goes on with its own
	dirty bool
	box   box
	view  string
}

// update takes the sweep's result so far. It runs on the sweep's
// goroutine, between levels, so it copies and returns at once.
func (p *sweepPanel) update(r *sweep.Result) {
	c := *r
	c.Levels = slices.Clone(r.Levels)
	if r.Running != nil {
		lv := *r.Running
		c.Running = &lv
	}
	p.mu.Lock()
	p.res, p.dirty = c, true
	p.mu.Unlock()
}

// result is the latest result and whether it changed since last asked.
func (p *sweepPanel) result() (sweep.Result, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	d := p.dirty
	p.dirty = false
	return p.res, d
}

// runSweep carries out the run screen's sweep on the calling goroutine,
// with the screen's sink and observer, and tells the screen it ended.
func (rs *runScreen) runSweep(sink func(*record.Record), observe func(probe.Event)) {
	sp := *rs.cfg.Sweep
	sp.Base.Progress = rs.progress
	ctx := rs.m.ctx
	res, st := sweep.Run(ctx, sp, sink, observe, rs.sweep.update)
	rs.sweep.update(&res)
	rs.end(st, ctx.Err() != nil, rs.sh.now)
}

// sweepRows is how many rows the sweep panel takes of rest. It takes its
// table (a row per planned level, the header and the verdict), and the plots
// below it when the screen has rows to spare or beside it when wide.
func sweepRows(planned, rest, width int) int {
	table := planned + 4 // title, header, rows, a two-line verdict
	if width < 120 {
		table++ // the verdict takes three
	}
	h := table
	switch {
	case width >= 200:
		h = max(table, 10)
	case rest-table-9 >= 12:
		h = table + 9
	}
	return max(0, min(h, rest-6))
}

// sweepNote is the header's note while a sweep runs, the level in progress.
func (rs *runScreen) sweepNote() string {
	if rs.cfg.Sweep == nil {
		return ""
	}
	r, _ := rs.sweep.peek()
	if r.Running == nil {
		return ""
	}
	i := slices.Index(r.Planned, *r.Running)
	return fmt.Sprintf("level %d/%d · %s", i+1, len(r.Planned), sweep.Label(r.Kind, *r.Running))
}

// peek is the latest result, leaving the dirty mark alone.
func (p *sweepPanel) peek() (sweep.Result, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.res, p.dirty
}

// renderSweep redraws the sweep panel when its result or its box changed.
func (rs *runScreen) renderSweep(all bool) {
	p := &rs.sweep
	r, changed := p.result()
	if !changed && !all && p.box == rs.lay.sweep.b {
		return
	}
	p.box = rs.lay.sweep.b
	if p.box.h <= 0 {
		p.view = ""
		return
	}
	note := fmt.Sprintf("%d of %d levels", len(r.Levels), len(r.Planned))
	if r.Knee != nil {
		note += " · knee at " + sweep.LevelNum(r.Knee.Level)
	}
	if left := views.SweepLeftOut(&r, p.box.w); len(left) > 0 {
		note += " · left out at this width: " + strings.Join(left, ", ")
	}
	p.view = title(&rs.sh.styles, "sweep", note, p.box.w, false) + "\n" +
		views.SweepPanel(&r, p.box.w, p.box.h-1, &rs.sh.styles.Views)
}

// SweepResult is the run screen's sweep as it ended. Call it after Wait.
func (m *Model) SweepResult() *sweep.Result {
	if m.rs == nil || m.rs.cfg.Sweep == nil {
		return nil
	}
	r, _ := m.rs.sweep.peek()
	return &r
}
