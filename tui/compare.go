package tui

import (
	"context"
	"fmt"
	"math"
	"strings"
	"time"

	"charm.land/bubbles/v2/help"
	"charm.land/bubbles/v2/key"
	tea "charm.land/bubbletea/v2"
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// comparePanel is what the compare screen shows below its header.
type comparePanel uint8

const (
	panelFigures comparePanel = iota
	panelDists
	panelStreams
	panelPrompts
	panelScatter
	panelCount
)

var (
	panelNames      = [panelCount]string{"figures", "histograms", "streams", "per prompt", "scatter"}
	panelShortNames = [panelCount]string{"figs", "hist", "strm", "prmt", "scat"} // below 100 columns, but the current one
)

// compareScreen is the side-by-side view of recorded runs, one of the
// root model's screens.
type compareScreen struct {
	m       *Model
	sh      *shell
	stallMS float64
	c       *compare.Comparison
	names   []string           // "A steady.jsonl", per run
	runs    [][]*record.Record // each run's measured streams, in file order
	gaps    [][]float64        // each run's gaps, pooled
	ttft    [][]float64        // each run's TTFTs
	keys    CompareKeyMap
	help    help.Model
	panel   comparePanel
	skip    [panelCount]int // scroll of the figure tables
	selRun  int             // the run of the selected stream
	sel     int             // and its position in the run
	byTime  bool

	// live feeds a comparison of runs still being measured. It is nil for
	// files. The status says how far the runs are.
	live   *CompareFeed
	status string

	// These fields cache the parts that compose joins, for drawing.
	headerH, bodyH   int
	figures, prompts views.FigureTable
	header, body     string
}

// RunCompare shows the compare screen for c until the user quits, and
// returns once its goroutines have ended. The error is the program's.
func RunCompare(ctx context.Context, c *compare.Comparison, cfg Config) error {
	m := NewCompare(ctx, c, cfg)
	_, err := tea.NewProgram(m, tea.WithContext(ctx)).Run()
	m.Wait()
	return err
}

// NewCompare returns the root model on the compare screen for c. Any
// stream of any run opens in the stream screen, and esc comes back.
func NewCompare(ctx context.Context, c *compare.Comparison, cfg Config) *Model {
	if cfg.StallMS <= 0 && len(c.Runs[0].Records) > 0 {
		cfg.StallMS = c.Runs[0].Records[0].StallMS
	}
	m := New(ctx, cfg)
	cs := &compareScreen{m: m, sh: &m.sh, stallMS: m.cfg.StallMS, keys: DefaultCompareKeyMap(), help: help.New()}
	cs.load(c)
	cs.restyle()
	m.cmp = cs
	m.active = cs
	m.stream.keys.Back.SetEnabled(true)
	cs.setPanel(panelFigures)
	return m
}

func (cs *compareScreen) restyle() { cs.help.Styles = cs.sh.styles.Help }

// load takes a comparison's runs into the screen.
func (cs *compareScreen) load(c *compare.Comparison) {
	cs.c, cs.names, cs.runs, cs.gaps, cs.ttft = c, nil, nil, nil, nil
	for i, r := range c.Runs {
		cs.names = append(cs.names, compare.Letter(i)+" "+r.Label)
		var recs []*record.Record
		var gaps, ttft []float64
		for _, rec := range r.Records {
			if rec.Phase == record.PhaseWarmup {
				continue
			}
			recs = append(recs, rec)
			gaps = append(gaps, rec.Gaps()...)
			if rec.TTFTMS != nil {
				ttft = append(ttft, *rec.TTFTMS)
			}
		}
		cs.runs, cs.gaps, cs.ttft = append(cs.runs, recs), append(cs.gaps, gaps), append(cs.ttft, ttft)
	}
	if cs.selRun >= len(cs.runs) {
		cs.selRun, cs.sel = 0, 0
	}
}

// update handles a message on the compare screen.
func (cs *compareScreen) update(msg tea.Msg) tea.Cmd {
	switch msg := msg.(type) {
	case tea.WindowSizeMsg, tea.BackgroundColorMsg:
		cs.render()
	case tea.KeyPressMsg:
		k := &cs.keys
		switch {
		case key.Matches(msg, k.Quit):
			return cs.m.quit(msg)
		case key.Matches(msg, k.Next):
			cs.setPanel((cs.panel + 1) % panelCount)
		case key.Matches(msg, k.Prev):
			cs.setPanel((cs.panel + panelCount - 1) % panelCount)
		case key.Matches(msg, k.Panel):
			cs.setPanel(comparePanel(msg.Text[0] - '1'))
		case key.Matches(msg, k.Help):
			cs.help.ShowAll = !cs.help.ShowAll
		case key.Matches(msg, k.Open):
			if cs.selRun < len(cs.runs) && cs.sel < len(cs.runs[cs.selRun]) {
				cs.openStream(cs.selRun, cs.sel)
				return nil
			}
		case key.Matches(msg, k.HeatMode):
			cs.byTime = !cs.byTime
		case key.Matches(msg, k.Left, k.Right, k.Up, k.Down, k.PageUp, k.PageDown, k.Top):
			cs.move(msg)
		}
		cs.render()
	}
	return nil
}

// setPanel switches panels and enables the keys that work there.
func (cs *compareScreen) setPanel(p comparePanel) {
	cs.panel = p
	k := &cs.keys
	streams := p == panelStreams
	for _, b := range []*key.Binding{&k.Left, &k.Right, &k.Open, &k.HeatMode} {
		b.SetEnabled(streams)
	}
	k.Up.SetHelp("↑/↓", "scroll")
	if streams {
		k.Up.SetHelp("↑/↓", "stream")
	}
	cs.enableScroll()
}

// enableScroll enables the vertical keys where they move something. They
// move the stream selection, or a figure table longer than the screen.
func (cs *compareScreen) enableScroll() {
	k := &cs.keys
	on := cs.panel == panelStreams || (cs.panel != panelDists && cs.table().MaxSkip(cs.bodyH) > 0)
	for _, b := range []*key.Binding{&k.Up, &k.Down, &k.PageUp, &k.PageDown, &k.Top} {
		b.SetEnabled(on)
	}
}

// move scrolls the figure tables, or moves the stream selection.
func (cs *compareScreen) move(msg tea.KeyPressMsg) {
	k := &cs.keys
	page := max(1, cs.bodyH-3)
	if cs.panel == panelStreams {
		switch {
		case key.Matches(msg, k.Left):
			cs.selRun = (cs.selRun + len(cs.runs) - 1) % len(cs.runs)
		case key.Matches(msg, k.Right):
			cs.selRun = (cs.selRun + 1) % len(cs.runs)
		}
		// Moving to another run keeps the selection inside its streams.
		cs.sel, _ = k.move(msg, cs.sel, len(cs.runs[cs.selRun]), page)
		cs.sel = max(0, min(cs.sel, len(cs.runs[cs.selRun])-1))
		return
	}
	s := &cs.skip[cs.panel]
	*s, _ = k.move(msg, *s, cs.table().MaxSkip(cs.bodyH)+1, page)
	*s = max(0, min(*s, cs.table().MaxSkip(cs.bodyH)))
}

// table is the figure table of the current panel.
func (cs *compareScreen) table() views.FigureTable {
	if cs.panel == panelPrompts {
		return cs.prompts
	}
	return cs.figures
}

// openStream shows stream i of run in the stream screen, among the run's
// other streams (the dimmer timeline rows and the heatmap), so its clocks
// stand beside the whole run's.
func (cs *compareScreen) openStream(run, i int) {
	recs := cs.runs[run]
	sel := recs[i]
	hist := make([]*record.Record, 0, len(recs))
	for j, r := range recs {
		if j != i {
			hist = append(hist, r)
		}
	}
	s := cs.m.stream
	if sel.StallMS > 0 {
		s.stallMS = sel.StallMS
	}
	s.open(sel, views.PhaseDone, time.Time{}, append(hist, sel), cs.names[run]+" · esc: back to compare")
}

// back leaves the stream screen for the compare screen, redrawn
// for the terminal's size now.
func (cs *compareScreen) back() {
	cs.m.show(cs)
	cs.render()
}

// render lays out and draws the compare screen's header and the
// current panel.
func (cs *compareScreen) render() {
	w, h := cs.sh.width, cs.sh.height
	if w <= 0 || h <= 0 {
		return
	}
	st := &cs.sh.styles.Views
	cs.help.SetWidth(w)
	helpH := lipgloss.Height(helpBar(&cs.help, cs.keys, cs.keys.Help, cs.keys.Quit, cs.sh.width))
	if h < 8 {
		helpH = 0
	}
	// The header has the title, a line per run and the banner. It takes at
	// most a third of the screen, so the figures keep the rest.
	want := 1 + len(cs.c.Runs)
	if n := len(cs.c.Workload); n > 0 {
		want += 1 + n
	}
	cs.headerH = min(want, max(1, h/3))
	cs.bodyH = max(0, h-cs.headerH-1-helpH)
	cs.header = views.CompareHeader(cs.c, w, cs.headerH, st)
	if cs.status != "" {
		// Runs still being measured say how far they are on the title line.
		first, rest, _ := strings.Cut(cs.header, "\n")
		first = textfmt.Fit(first+st.Dim.Render(" · ")+st.Live.Render(cs.status), w, 1)
		cs.header = strings.TrimSuffix(first+"\n"+rest, "\n")
	}
	cs.figures = views.CompareFigures(cs.c, false, w, cs.bodyH, st)
	cs.prompts = views.CompareFigures(cs.c, true, w, cs.bodyH, st)
	cs.skip[panelFigures] = min(cs.skip[panelFigures], cs.figures.MaxSkip(cs.bodyH))
	cs.skip[panelPrompts] = min(cs.skip[panelPrompts], cs.prompts.MaxSkip(cs.bodyH))
	cs.enableScroll()
	cs.body = cs.drawBody(w, cs.bodyH)
}

// drawBody draws the current panel in width × height.
func (cs *compareScreen) drawBody(w, h int) string {
	st := &cs.sh.styles.Views
	switch cs.panel {
	case panelDists:
		ttftH := min(max(3, h/3), h/2)
		gapH := h - ttftH
		gaps := title(&cs.sh.styles, "gap ms", "log buckets · bar: share of each run's gaps, one scale", w, false) + "\n" +
			views.CompareHistogram(cs.names, cs.gaps, cs.stallMS, w, gapH-1, st)
		ttft := title(&cs.sh.styles, "ttft ms", "log buckets · bar: share of each run's streams", w, false) + "\n" +
			views.CompareHistogram(cs.names, cs.ttft, math.Inf(1), w, ttftH-1, st)
		return textfmt.Fit(gaps+"\n"+ttft, w, h)
	case panelStreams:
		return views.CompareHeatmaps(cs.names, cs.runs, cs.byTime, cs.selRun, cs.sel, w, h, st)
	case panelScatter:
		return cs.scatter(w, h)
	case panelPrompts:
		if len(cs.c.Prompts) == 0 {
			return views.Note("no per-prompt view: it needs the same two or more prompt ids in every run", w, h, st)
		}
	}
	return cs.table().Render(cs.skip[cs.panel], h)
}

// view joins the compare screen's cached parts.
func (cs *compareScreen) view() string {
	parts := []string{cs.header, cs.tabBar(), cs.body}
	if cs.sh.height >= 8 {
		parts = append(parts, helpBar(&cs.help, cs.keys, cs.keys.Help, cs.keys.Quit, cs.sh.width))
	}
	return textfmt.Fit(strings.Join(nonEmpty(parts), "\n"), cs.sh.width, cs.sh.height)
}

// tabBar is the panel bar. It shows every panel with its key, the current
// one highlighted, and what the current one needs explained.
func (cs *compareScreen) tabBar() string {
	st := &cs.sh.styles.Views
	var short []string
	if cs.sh.width < 100 {
		short = panelShortNames[:]
	}
	line := tabs(st, panelNames[:], short, int(cs.panel))
	note := ""
	switch cs.panel {
	case panelFigures, panelPrompts:
		if t := cs.table(); t.MaxSkip(cs.bodyH) > 0 {
			rows := cs.bodyH - 2
			note = st.Dim.Render(fmt.Sprintf("%d–%d/%d ↓", cs.skip[cs.panel]+1, min(t.Lines(), cs.skip[cs.panel]+rows), t.Lines()))
		}
		if legend := views.CompareLegend(cs.sh.width-lipgloss.Width(line+note)-5, st); legend != "" && note != "" {
			note += st.Dim.Render(" · ") + legend
		} else {
			note += legend
		}
	case panelStreams:
		note = st.Dim.Render("←/→ run · ↑/↓ stream · enter opens it")
	}
	return ruled(&cs.sh.styles, line+" "+note, cs.sh.width)
}

// scatter is a point per run file — its TTFT p50 against its pooled
// gap p99, drawn as its letter — and the trend of both by run.
func (cs *compareScreen) scatter(w, h int) string {
	st := &cs.sh.styles.Views
	var pts []views.ScatterPoint
	ttft := views.Trend{Series: -1, Label: "ttft p50"}
	gap := views.Trend{Series: -1, Label: "gap p99"}
	skipped := 0
	for i := range cs.c.Runs {
		mt := cs.c.Runs[i].Summary.Metrics
		t50, g99 := stats.TTFT.Of(mt).P50, stats.Gap.Of(mt).P99
		ttft.Values, gap.Values = append(ttft.Values, t50), append(gap.Values, g99)
		if t50 == nil || g99 == nil {
			skipped++
			continue
		}
		pts = append(pts, views.ScatterPoint{Series: i, TTFTMS: *t50, GapMS: *g99})
	}
	scatterH := h - 4
	parts := []string{
		title(&cs.sh.styles, "scatter", "a point per run: ttft p50 × gap p99 of its streams", w, false),
		views.Scatter(pts, true, skipped, cs.stallMS, w, scatterH, st),
		title(&cs.sh.styles, "trend", "by run, A first", w, false),
		views.TrendStrip([]views.Trend{ttft, gap}, "runs", w, 2, st),
	}
	return textfmt.Fit(strings.Join(parts, "\n"), w, h)
}
