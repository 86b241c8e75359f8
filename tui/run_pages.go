package tui

import (
	"fmt"
	"math"
	"strings"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// runPage is what the run screen shows below its header and counts. A
// page shows the streams (table, plots as they fit, the selected stream's
// timeline), the distributions whole, or the scatter. Panels that do not
// fit the first page at a size are on the others, never dropped.
type runPage uint8

const (
	runPageStreams runPage = iota
	runPageDists
	runPageScatter
	runPageCount
)

var runPageNames = [runPageCount]string{"streams", "distributions", "scatter"}

func (p runTabs) draw(b box) string {
	rs := p.rs
	return ruled(&rs.sh.styles, tabs(&rs.sh.styles.Views, runPageNames[:], nil, int(rs.page)), b.w)
}

// ttftNote is the TTFT histogram's caption. It says what the histogram
// holds, and the streams still in flight that it cannot hold yet.
func (rs *runScreen) ttftNote(long bool) string {
	waiting := 0
	for _, s := range rs.live {
		if s.rec.TTFTMS == nil {
			waiting++
		}
	}
	if !long {
		return fmt.Sprintf("n=%d · %d in flight · %d waiting", rs.ttft.N(), len(rs.live), waiting)
	}
	// These are the figures of the summary the header and the report show.
	// Their n is the finished streams the histogram holds.
	figures := views.TTFTFigures(stats.TTFT.Of(rs.sum.Metrics))
	return fmt.Sprintf("%s finished · %d in flight, %d without a first token yet · log buckets", figures, len(rs.live), waiting)
}

// emptyTTFT and emptyGaps are what the histograms, which hold finished
// measured streams, say while empty. Streams in flight may have their
// first token and gaps already, so "no first token yet" beside a table of
// streaming rows with a ttft would be a lie.
func (rs *runScreen) emptyTTFT() string {
	return rs.emptyNote("no finished stream had a first token")
}

func (rs *runScreen) emptyGaps() string {
	return rs.emptyNote("no finished stream had two content frames")
}

func (rs *runScreen) emptyNote(none string) string {
	if rs.progress.Finished.Load() == 0 {
		return "no measured stream has finished yet"
	}
	return none
}

// draw shows page 2 (the distributions whole) or 3 (the scatter).
func (p runPageBody) draw(b box) string {
	rs := p.rs
	w, h := b.w, b.h
	st := &rs.sh.styles.Views
	if rs.page == runPageScatter {
		return rs.scatter(w, h)
	}
	ttftH := max(3, h/2)
	gapH := h - ttftH
	ttft := title(&rs.sh.styles, "ttft ms", rs.ttftNote(true), w, false) + "\n" +
		views.Histogram(&rs.ttft, math.Inf(1), rs.emptyTTFT(), w, ttftH-1, st)
	gaps := title(&rs.sh.styles, "gap ms", fmt.Sprintf("n=%d · log buckets", rs.gaps.N()), w, false) + "\n" +
		views.Histogram(&rs.gaps, rs.m.cfg.StallMS, rs.emptyGaps(), w, gapH-1, st)
	return textfmt.Fit(textfmt.Fit(ttft, w, ttftH)+"\n"+gaps, w, h)
}

// scatter is a point per finished measured stream the screen keeps,
// and the trend of TTFT and gap p99 by stream, in the order they started.
func (rs *runScreen) scatter(w, h int) string {
	st := &rs.sh.styles.Views
	var pts []views.ScatterPoint
	ttft := views.Trend{Series: -1, Label: "ttft"}
	gap := views.Trend{Series: -1, Label: "gap p99"}
	skipped := 0
	for _, s := range rs.list {
		if s.phase != views.PhaseDone || s.warmup {
			continue
		}
		if s.pt == nil {
			skipped++
			ttft.Values, gap.Values = append(ttft.Values, s.rec.TTFTMS), append(gap.Values, nil)
			continue
		}
		pts = append(pts, *s.pt)
		ttft.Values, gap.Values = append(ttft.Values, &s.pt.TTFTMS), append(gap.Values, &s.pt.GapMS)
	}
	trendH := 0
	if h >= 10 {
		trendH = 2
	}
	scatterH := h - 1
	if trendH > 0 {
		scatterH = h - trendH - 2
	}
	note := "ttft × gap p99, a point per stream"
	if n := len(rs.live); n > 0 {
		note += fmt.Sprintf(" · %d in flight not yet drawn", n)
	}
	parts := []string{
		title(&rs.sh.styles, "scatter", note, w, false),
		views.Scatter(pts, false, skipped, rs.m.cfg.StallMS, w, scatterH, st),
	}
	if trendH > 0 {
		parts = append(parts, title(&rs.sh.styles, "trend", "by stream, in the order they started", w, false),
			views.TrendStrip([]views.Trend{ttft, gap}, "streams", w, trendH, st))
	}
	return textfmt.Fit(strings.Join(parts, "\n"), w, h)
}
