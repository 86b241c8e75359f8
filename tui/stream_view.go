package tui

import (
	"fmt"
	"path/filepath"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// streamLayout places the stream screen's panels for a terminal size. It
// shows everything at 120×40, a compact arrangement at 80×24, the text and
// clocks stacked below 72 columns, and panels dropped (heatmap and gaps
// first) when rows run out.
type streamLayout struct {
	header, timeline, text, clocks, gaps, ttft, heat, help slot
	rows                                                   grid
	// left is what the clocks' title says of the panels left out.
	// Without it the gaps and the heatmap went without a word at 80×24.
	left string
}

// newStreamLayout gives each slot its panel, and relayout sizes them.
// With a relay's records the hops panel takes the clocks' place and the
// clocks the gaps'.
func newStreamLayout(s *streamScreen) streamLayout {
	l := streamLayout{
		header: slot{p: streamHeader{s}}, timeline: slot{p: streamTimeline{s}},
		text: slot{p: streamText{s}}, clocks: slot{p: streamClocks{s}},
		gaps: slot{p: streamGaps{s}}, ttft: slot{p: streamTTFT{s}}, heat: slot{p: streamHeatmap{s}},
		help: slot{p: helpPanel{&s.help, &s.keys, &s.keys.Help, &s.keys.Quit, &s.helpBar}},
	}
	if s.beside() {
		l.clocks.p, l.gaps.p = streamHops{s}, streamClocks{s}
	}
	return l
}

// relayout sizes the panels for the shell's size and arranges them.
func (s *streamScreen) relayout() {
	w, h := s.sh.width, s.sh.height
	l := &s.lay
	l.header.b, l.help.b = box{w, 1}, box{w, 1}
	if h >= 30 {
		l.header.b.h = 2
	}
	if s.help.ShowAll {
		l.help.b.h = lipgloss.Height(helpBar(&s.help, s.keys, s.keys.Help, s.keys.Quit, w))
	}
	if h < 8 {
		l.help.b.h = 0
	}
	avail := h - l.header.b.h - l.help.b.h
	// The timeline has the current row, markers, axis, and earlier runs as
	// room allows.
	maxEarlier := max(0, min(avail/5, 8)-3)
	l.timeline.b = box{w, min(avail, 4+min(len(s.earlier()), maxEarlier))}
	rest := avail - l.timeline.b.h
	l.text.b, l.clocks.b, l.gaps.b, l.ttft.b, l.heat.b = box{}, box{}, box{}, box{}, box{}
	var clockH int // the rows the clocks panel draws at its width
	if w >= 72 {
		cw := s.clocksWidth(w)
		clockH = s.clocksHeight(cw)
		// The text and the clocks get the clocks' rows, and the rest goes
		// to the gaps, ttft and heatmap. Given 55 % of the rows at 200×50,
		// the demo left 7 rows empty beside the clocks (the text, 117
		// columns wide, was three lines), and 2 at 120×40. A longer text
		// scrolls, following its tail.
		mid := min(rest, clockH+1)
		bottom := rest - mid
		if bottom < 4 {
			mid, bottom = rest, 0
		}
		l.left = "gaps, ttft, heatmap: more rows"
		if bottom > 0 {
			mid = s.layoutBottom(w, mid, bottom, cw)
		}
		l.text.b, l.clocks.b = box{w - cw - 1, max(mid, 0)}, box{cw, mid}
		l.rows = grid{{&l.header}, {&l.timeline}, {&l.text, &l.clocks}, {&l.gaps, &l.ttft, &l.heat}, {&l.help}}
	} else {
		clockH = s.clocksHeight(w)
		ch := min(clockH+1, rest/2)
		l.clocks.b, l.text.b = box{w, ch}, box{w, max(rest-ch, 0)}
		l.left = "gaps, ttft, heatmap: 72+ columns"
		l.rows = grid{{&l.header}, {&l.timeline}, {&l.clocks}, {&l.text}, {&l.help}}
	}
	s.layEarlier, s.layClocks, s.layBeside = len(s.earlier()), clockH, s.besideNeed()
	s.text.width, s.text.height = l.text.b.w, max(0, l.text.b.h-1)
	s.help.SetWidth(w)
}

// layoutBottom lays out the row under the text and the clocks, given
// bottom rows, and returns the rows left to the text (mid and what the
// bottom row does not need). Beside a relay the clocks take the gaps'
// place, as wide as beside the text, and the bottom row is only as high
// as they or the runs need. Otherwise, at 200×50 the text of a long
// answer had 4 rows and 17 stood empty under the clocks.
func (s *streamScreen) layoutBottom(w, mid, bottom, cw int) int {
	if !s.beside() {
		s.lay.layoutRow(w, bottom, 0)
		return mid
	}
	s.lay.layoutRow(w, bottom, cw)
	if need := s.besideNeed(); need < bottom {
		s.lay.layoutRow(w, need, cw)
		return mid + bottom - need
	}
	return mid
}

// besideNeed is the rows the bottom row needs beside a relay. That is the
// clocks under their title, or a row a run and the heatmap's title and
// legend.
// It is 0 when the screen is not beside a relay or has no bottom row.
func (s *streamScreen) besideNeed() int {
	if !s.beside() || s.lay.gaps.b.h == 0 {
		return 0
	}
	return max(views.ClocksHeight(s.clocks(), s.lay.gaps.b.w)+1, len(s.runs())+2)
}

// layoutRow sizes the row under the text and clocks, bottom rows high.
// The row holds the gaps, the TTFT of each run beside them from 100
// columns, and the heatmap. The gaps' place is at least least columns wide
// while the heatmap keeps 30. The clocks are drawn there beside a relay,
// and the gaps' 24 columns of a 120-column screen cut every figure.
func (l *streamLayout) layoutRow(w, bottom, least int) {
	l.left = ""
	if w < 100 {
		l.gaps.b, l.heat.b = box{w / 2, bottom}, box{w - w/2 - 1, bottom}
		l.left = "ttft: 100+ columns"
		return
	}
	tw := 38                    // keeps its title's figures whole, as in " ttft  p50 1.25 s · p99 12.5 s · n=40"
	gw := (w - tw - 2) * 3 / 10 // the heatmap's columns are frames and its legend says what they are, so it keeps the most
	gw = max(gw, min(least, w-tw-2-30))
	l.gaps.b, l.ttft.b, l.heat.b = box{gw, bottom}, box{tw, bottom}, box{w - gw - tw - 2, bottom}
}

// clocksWidth is the clocks panel's width beside the text at w columns
// (72 or more). From 120 columns, once there are runs to sum, it is wide
// enough for the all-runs column (a file in drip view has them at once).
func (s *streamScreen) clocksWidth(w int) int {
	switch {
	case w >= 160:
		return 82
	case w >= 120 && s.all != nil:
		return views.ClocksAllWidth
	case w >= 120:
		return 46
	}
	return 40
}

// view joins the cached panels. The text and the help bar cost only the
// lines on screen and follow the scroll, focus and help keys, so they are
// drawn as the view is joined, when what they show changed.
func (s *streamScreen) view() string {
	b := s.lay.text.b
	if k := (textKey{s.text.gen, s.text.top, b.w, b.h, s.focus == focusText, s.follow}); k != s.textKey || s.lay.text.view == "" {
		s.lay.text.redraw()
		s.textKey = k
	}
	s.lay.help.redraw()
	return textfmt.Fit(strings.Join(s.lay.rows.compose(), "\n"), s.sh.width, s.sh.height)
}

// render redraws the panels whose inputs changed (all of them after a
// resize or a new palette). While frozen only the header moves.
func (s *streamScreen) render(all bool) {
	if !s.sh.sized() {
		return
	}
	s.m.redraws++
	now := s.sh.now()
	s.redraw.lastDraw = now
	if s.layEarlier != len(s.earlier()) {
		s.relayout()
		all = true
	}
	frozen := s.frozen && !all
	heavy := !frozen && (all || !s.live() || now.Sub(s.lastHeavy) >= heavyEvery(len(s.cur.Record.Frames)))
	if s.dirtyData && heavy {
		s.summarise()
		wide := s.sh.width >= 72 && s.lay.clocks.b.w != s.clocksWidth(s.sh.width)
		if wide || s.layClocks != s.clocksHeight(s.lay.clocks.b.w) || s.layBeside != s.besideNeed() {
			s.relayout() // a row came (ttfo, held) or the all-runs column did
			all = true
		}
	}
	s.renderHeader() // after summarise, as its frame count is the clocks'
	if frozen {
		return
	}
	l := &s.lay
	if all || s.dirtyData || s.live() {
		l.timeline.redraw()
	}
	if !heavy {
		return
	}
	s.lastHeavy = now
	if all || s.dirtyText {
		s.wrapText()
	}
	// A stall that began or ended since the clocks were drawn changes
	// their stalls row though no data came.
	_, stalling := views.LiveStall(&s.cur)
	if all || s.dirtyData || stalling != s.clocksStalling {
		s.clocksStalling = stalling
		l.clocks.redraw()
	}
	if all || s.dirtyData {
		l.gaps.redraw()
		l.ttft.redraw()
		l.heat.redraw()
	}
	s.dirtyData, s.dirtyText = false, false
}

func (s *streamScreen) renderHeader() { s.lay.header.redraw() }

// wrapText wraps the frames that came since the last time.
func (s *streamScreen) wrapText() {
	if s.lay.text.b.h <= 1 {
		return
	}
	if s.cur.Hops != nil {
		s.text.wrapped.SetMarks(s.cur.Hops.Marks())
	} else {
		s.text.wrapped.SetMarks(nil)
	}
	s.text.wrapped.Update(s.cur.Record, s.lay.text.b.w)
	s.text.gen++
	if s.follow {
		s.text.gotoBottom()
	}
}

// The stream screen's panels, each drawing itself into its box.
type (
	streamHeader   struct{ s *streamScreen }
	streamTimeline struct{ s *streamScreen }
	streamText     struct{ s *streamScreen }
	streamClocks   struct{ s *streamScreen }
	streamGaps     struct{ s *streamScreen }
	streamTTFT     struct{ s *streamScreen }
	streamHeatmap  struct{ s *streamScreen }
)

func (p streamHeader) draw(b box) string {
	s := p.s
	note := s.note
	if s.frozen {
		note = "drawing frozen (measuring continues) · space resumes"
	}
	if w := warmupNote(s.history); w != "" && note == "" {
		note = w
	}
	if recs := s.m.cfg.Records; s.m.cfg.File != "" {
		note = strings.Join(nonEmpty([]string{viewNote(s.m.cfg.File, recs, s.pick), note}), " · ")
	}
	if srcs := s.m.cfg.Sources; len(srcs) > 1 {
		name := "scenario " + srcs[s.src].Name
		if note != "" {
			note = name + " · " + note
		} else {
			note = name + " · n: next scenario"
		}
	}
	return views.Header(&s.cur, warned(s.m.cfg.Warning, note), b.w, b.h, &s.sh.styles.Views)
}

// viewNote is what drip view's header says of where it is. It names the
// file, the stream shown among its streams, and what wrote them, so a
// screen seen later (a capture, a second window) still says which file it
// is. The
// header leaves the last parts out as the width runs out, the file kept.
func viewNote(file string, recs []*record.Record, pick int) string {
	parts := []string{"file " + filepath.Base(file), fmt.Sprintf("stream %d of %d", pick+1, len(recs))}
	if src := recordSource(recs[pick]); src != "" {
		parts = append(parts, src)
	}
	return strings.Join(parts, " · ") // the footer says what [ and ] do
}

// recordSource says what wrote a record. That is drip record's proxy (it
// holds the exchange) or a drip command that measured it, with the version
// and host the record names.
func recordSource(r *record.Record) string {
	src := "from drip"
	if r.Exchange != nil {
		src = "from drip record"
	}
	if w := r.Workload; w != nil && w.Version != "" {
		src += " " + w.Version
	}
	if r.Host != "" {
		src += " on " + r.Host
	}
	return src
}

// warmupNote explains the w on the rows of warmup streams (saved records
// hold them beside the measured runs), or is empty when there are none.
func warmupNote(history []*record.Record) string {
	n := 0
	for _, r := range history {
		if r.Phase == record.PhaseWarmup {
			n++
		}
	}
	if n == 0 {
		return ""
	}
	// Short enough to fit beside the status at 80 columns.
	return fmt.Sprintf("#nw: %d warmup, left out of the all-runs figures", n)
}

func (p streamTimeline) draw(b box) string {
	s := p.s
	st := &s.sh.styles
	zoom := 0.0
	if s.zoom {
		zoom = zoomMS
	}
	// The note says the runs left out (the heatmap has them all), then the
	// legend. The title takes " timeline " and a space before them.
	earlier := s.earlier()
	note := ""
	if shown := views.TimelineEarlierRows(len(earlier), b.h-1); shown < len(earlier) {
		note = fmt.Sprintf("last %d of %d runs · ", shown+1, len(earlier)+1)
	}
	if s.zoom { // the axis alone did not say the stream's start is off it
		note = "zoomed: its last " + textfmt.MS(zoomMS) + ", z: all · " + note
	}
	if lw := b.w - lipgloss.Width(" timeline "+note) - 1; lw != s.legendW || s.legend == "" {
		s.legend, s.legendW = views.TimelineLegend(lw, &st.Views), lw
	}
	return title(st, "timeline", st.Views.Label.Render(note)+s.legend, b.w, false) + "\n" +
		s.timeline.Timeline(&s.cur, earlier, zoom, b.w, b.h-1, &st.Views)
}

func (p streamText) draw(b box) string {
	s := p.s
	scroll := ""
	if !s.follow {
		scroll = "scrolled · end follows the tail"
	}
	return title(&s.sh.styles, "text", scroll, b.w, s.focus == focusText) + "\n" + s.text.render(&s.sh.styles.Views)
}

func (p streamClocks) draw(b box) string {
	s := p.s
	return title(&s.sh.styles, "clocks", s.lay.left, b.w, false) + "\n" +
		views.ClocksPanel(s.clocks(), b.w, b.h-1, &s.sh.styles.Views)
}

func (s *streamScreen) clocks() views.Clocks {
	_, stalling := views.LiveStall(&s.cur)
	return views.Clocks{Record: s.cur.Record, This: s.this, All: s.all, Stalling: stalling}
}

// clocksHeight is the clocks panel's rows at width, its title left out
// (the hops panel's, which takes its place with a relay).
func (s *streamScreen) clocksHeight(width int) int {
	if s.beside() {
		return views.HopsHeight(s.cur.Hops, width)
	}
	return views.ClocksHeight(s.clocks(), width)
}

func (p streamGaps) draw(b box) string {
	s := p.s
	return title(&s.sh.styles, "gaps", "log buckets", b.w, false) + "\n" +
		views.Gaps(s.cur.Record, b.w, b.h-1, &s.sh.styles.Views)
}

// draw shows every run's TTFT (the heatmap's runs), its title the p50
// and p99 over the finished runs, as the clocks' all-runs column counts
// them.
func (p streamTTFT) draw(b box) string {
	s := p.s
	sum := s.this
	if s.all != nil {
		sum = s.all
	}
	return title(&s.sh.styles, "ttft", views.TTFTFigures(stats.TTFT.Of(sum.Metrics)), b.w, false) + "\n" +
		views.TTFTRuns(s.runs(), s.live(), b.w, b.h-1, &s.sh.styles.Views)
}

// runs are the runs other than the current one, then the current one.
func (s *streamScreen) runs() []*record.Record {
	runs := s.earlier()
	return append(runs[:len(runs):len(runs)], s.cur.Record)
}

func (p streamHeatmap) draw(b box) string {
	s := p.s
	mode := "runs × frame index · b: time"
	if s.heatByTime {
		mode = "runs × time · b: frame index"
	}
	runs := s.runs()
	return title(&s.sh.styles, "heatmap", mode, b.w, s.focus == focusHeatmap) + "\n" +
		views.Heatmap(runs, s.heatByTime, s.heatSkip, b.w, b.h-1, &s.sh.styles.Views)
}

// warned puts the session's warning (Config.Warning) before a header's
// note. The header drops a note's parts from the end as the width runs
// out, so the warning is the last thing cut.
func warned(warning, note string) string {
	return strings.Join(nonEmpty([]string{warning, note}), " · ")
}
