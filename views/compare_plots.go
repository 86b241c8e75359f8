package views

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// CompareHistogram draws one histogram per run on shared rows: the live
// view's log buckets, the same bucket on the same line for every run, and
// one scale of bar length — the share of each run's samples — so runs of
// different sizes compare. Buckets wholly at or above stallMS are drawn as
// stalls (pass +Inf for a metric without stalls). The first line names the
// runs with their sample counts; a line of each run's percentiles follows
// the buckets, which are too coarse to show a change within one.
func CompareHistogram(names []string, vals [][]float64, stallMS float64, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 || len(vals) == 0 {
		return ""
	}
	const labelW = 11
	colW := (width - labelW) / len(vals)
	if colW < 6 {
		return Note("too narrow for a histogram per run", width, height, st)
	}
	h := countRuns(vals)
	head := strings.Repeat(" ", labelW)
	for i, v := range vals {
		head += textfmt.FitLeft(st.Value.Render(sanitize.Line(names[i]))+st.Dim.Render(fmt.Sprintf(" n=%d", len(v))), colW-1) + " "
	}
	if h.hi < 0 {
		return textfmt.Fit(head+"\n"+st.Dim.Render("no samples in any run"), width, height)
	}
	rows := height - 1
	if rows >= 3 {
		rows-- // the percentiles
	}
	spans := h.rows(rows)
	most, share := h.largest(spans)
	countW := len(fmt.Sprint(most)) + 1
	barW := max(1, colW-countW-2)
	lines := []string{head}
	for _, r := range spans {
		line := st.Label.Render(fmt.Sprintf("%*s ", labelW-1, r.label()))
		for i, c := range h.counts {
			cell := ""
			if n := r.count(c); n > 0 {
				w := max(1, int(math.Round(float64(n)/float64(len(vals[i]))/share*float64(barW))))
				cell = r.style(stallMS, st).Render(strings.Repeat("█", w)) + " " + st.Value.Render(fmt.Sprint(n))
			}
			line += textfmt.FitLeft(cell, colW)
		}
		lines = append(lines, line)
	}
	if rows < height-1 {
		line := strings.Repeat(" ", labelW)
		for _, v := range vals {
			line += textfmt.FitLeft(percentiles(v, colW-1, st), colW-1) + " "
		}
		lines = append(lines, line)
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// runHistograms are several runs' samples in the shared log buckets.
type runHistograms struct {
	counts [][]int // per run, per bucket
	total  []int   // per bucket, every run
	lo, hi int     // the outermost buckets with samples (hi < 0: none)
}

func countRuns(vals [][]float64) runHistograms {
	h := runHistograms{counts: make([][]int, len(vals)), total: make([]int, stats.GapBuckets), lo: stats.GapBuckets, hi: -1}
	for i, v := range vals {
		h.counts[i] = make([]int, stats.GapBuckets)
		l, hi, _ := countBuckets(v, h.counts[i])
		h.lo, h.hi = min(h.lo, l), max(h.hi, hi)
		for b, n := range h.counts[i] {
			h.total[b] += n
		}
	}
	return h
}

// rows are the histogram's rows: a bucket each, every one in range, else
// those with samples; when rows still run short every run's counts
// together decide which stay (the fullest, then the largest values), and
// those left out are counted in the next row up (rowSpans).
func (h *runHistograms) rows(rows int) []span {
	mostTotal := 0
	for _, n := range h.total {
		mostTotal = max(mostTotal, n)
	}
	return histRows(h.total, h.lo, h.hi, mostTotal, max(rows, 1))
}

// largest is the largest count of one run's row, and the largest share
// of a run's samples in one row: the scale of every bar.
func (h *runHistograms) largest(rows []span) (most int, share float64) {
	for _, c := range h.counts {
		total := 0
		for _, n := range c {
			total += n
		}
		for _, r := range rows {
			n := r.count(c)
			most = max(most, n)
			if total > 0 {
				share = max(share, float64(n)/float64(total))
			}
		}
	}
	return most, share
}

// percentiles lists a sample's p50, p95, p99 and max (probe.Percentile,
// as the figures), as many as fit in width from the most telling.
func percentiles(v []float64, width int, st *Styles) string {
	if len(v) == 0 {
		return ""
	}
	s := slices.Clone(v)
	slices.Sort(s)
	stat := func(name string, p float64) string {
		return st.Label.Render(name+" ") + st.Value.Render(textfmt.MS(stats.Percentile(s, p)))
	}
	for _, set := range [][]string{{"p50", "p95", "p99", "max"}, {"p50", "p99", "max"}, {"p50", "max"}} {
		parts := make([]string, len(set))
		for i, name := range set {
			p := 100.0
			if name != "max" {
				p, _ = strconv.ParseFloat(name[1:], 64)
			}
			parts[i] = stat(name, p)
		}
		if out := strings.Join(parts, "  "); lipgloss.Width(out) <= width {
			return out
		}
	}
	return stat("p50", 50)
}

// CompareHeatmaps draws each run's heatmap side by side on one scale (a
// column is the same frame index, or the same time, in every run), one row
// per stream. Stream sel of run selRun is highlighted and kept in view,
// and described below the shared legend.
func CompareHeatmaps(names []string, runs [][]*record.Record, byTime bool, selRun, sel, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 || len(runs) == 0 {
		return ""
	}
	colW := (width - (len(runs) - 1)) / len(runs)
	if colW-labelWidth < 4 || height < 2 {
		return Note("too small for a heatmap per run: widen the terminal", width, height, st)
	}
	var every []*record.Record
	most := 0
	for _, r := range runs {
		every = append(every, r...)
		most = max(most, len(r))
	}
	if len(every) == 0 {
		return textfmt.Fit(st.Dim.Render("no streams"), width, height)
	}
	sc := heatScaleOf(every, every[0].StallMS)
	extra := 0 // the legend and the selected stream's line, room allowing
	if height >= 4 {
		extra = 2
	}
	rows := max(1, height-1-extra)
	first := max(0, min(sel-rows+1, most-rows))
	cols := make([]string, len(runs))
	for i, r := range runs {
		head := textfmt.FitLeft(st.Value.Render(sanitize.Line(names[i]))+st.Dim.Render(fmt.Sprintf(" · %d streams", len(r))), colW)
		hi := -1
		if i == selRun {
			hi = sel - first
		}
		// The same window of stream positions in every run, so rows line up.
		var body []string
		if first < len(r) {
			body = heatRows(r[first:min(len(r), first+rows)], byTime, 0, rows, hi, &st.TitleFocused, sc, colW, st)
		}
		cols[i] = textfmt.Fit(head+"\n"+strings.Join(body, "\n"), colW, min(rows, most)+1)
	}
	lines := []string{joinColumns(cols, " ")}
	if extra > 0 {
		lines = append(lines, heatLegend(stats.HeatShadeEdges(sc.stallMS), byTime, sc.per(colW-labelWidth), sc.span, width, st))
		if selRun >= 0 && selRun < len(runs) && sel >= 0 && sel < len(runs[selRun]) {
			lines = append(lines, streamLine(names[selRun], runs[selRun][sel], st))
		}
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}

// streamLine describes one stream in a line: its run, number, prompt,
// status and clocks.
func streamLine(run string, r *record.Record, st *Styles) string {
	parts := []string{st.Value.Render(sanitize.Line(run) + fmt.Sprintf(" #%d", r.Seq+1))}
	if r.PromptID != "" {
		parts = append(parts, "prompt "+sanitize.Line(r.PromptID))
	}
	status := string(r.Status)
	if r.Error != nil {
		status += " (" + sanitize.Line(r.Error.Class) + ")"
	}
	parts = append(parts, status)
	parts = append(parts, clockWords(r)...)
	if n := len(r.Stalls); n > 0 {
		parts = append(parts, st.StallMid.Render(fmt.Sprintf("%d stalls (%d mid-sentence)", n, r.MidSentenceStalls())))
	}
	return strings.Join(parts, st.Dim.Render(" · "))
}

// joinColumns puts blocks of equal height side by side.
func joinColumns(cols []string, sep string) string {
	split := make([][]string, len(cols))
	h := 0
	for i, c := range cols {
		split[i] = strings.Split(c, "\n")
		h = max(h, len(split[i]))
	}
	lines := make([]string, h)
	for y := range lines {
		parts := make([]string, len(cols))
		for i, s := range split {
			if y < len(s) {
				parts[i] = s[y]
			}
		}
		lines[y] = strings.Join(parts, sep)
	}
	return strings.Join(lines, "\n")
}
