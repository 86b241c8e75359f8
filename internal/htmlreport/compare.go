package htmlreport

import (
	"fmt"
	"strings"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
)

// comparePage is the report of runs side by side, the baseline A first.
type comparePage struct {
	Runs       []compareRun
	Workload   []compare.Difference
	Columns    []string
	Sections   []cmpSection
	Legend     []string
	MovedRule  string
	Readings   []compare.Reading
	Noise      string
	Gates      []gate
	Scatter    scatter
	Histograms []histogram
	Selection  string
	Streams    []stream
	Sweep      *sweepTable
}

// compareRun is one run's header, what it measured and its accounting.
type compareRun struct {
	Letter, Label string
	Facts         []fact
	Accounting    string
	Figures       []string
	Hints         []hint
}

type hint struct{ Shape, Hint, Evidence string }

type cmpSection struct {
	Title string
	Rows  []cmpRow
}

type cmpRow struct {
	Label string
	Cells []cmpCell
}

// cmpCell is one figure of a row. It is the baseline's value, or a run's
// value with its change, marks and noise interval.
type cmpCell struct {
	Value, Abs, Pct, Marks, CI, Tip string
	Base, Worse                     bool
}

func newComparePage(c *compare.Comparison) *comparePage {
	p := &comparePage{Legend: strings.Split(compare.Legend, "\n"), MovedRule: compare.MovedRule, Readings: c.Readings,
		Noise: fmt.Sprintf("%s; %d resamples, %.0f%% interval, seed %d", c.Noise.Method, c.Noise.Resamples, 100*c.Noise.Confidence, c.Noise.Seed),
		Sweep: newSweepTable(c.Levels)}
	for _, d := range c.Workload {
		vals := make([]string, len(d.Values))
		for i, v := range d.Values {
			vals[i] = sanitize.Line(v)
		}
		p.Workload = append(p.Workload, compare.Difference{Setting: d.Setting, Values: vals})
	}
	var runs []scatterRun
	for i := range c.Runs {
		r := &c.Runs[i]
		letter := compare.Letter(i)
		recs := measured(r.Records)
		h := newHeader(&r.Summary, r.Records, nil)
		cr := compareRun{Letter: letter, Label: sanitize.Line(r.Label), Facts: h.Facts, Accounting: h.Accounting, Figures: h.Figures}
		for _, d := range r.Summary.Diagnosis {
			cr.Hints = append(cr.Hints, hint{d.Shape, d.Hint, d.Evidence})
		}
		p.Runs = append(p.Runs, cr)
		runs = append(runs, scatterRun{Letter: letter, Label: cr.Label, Recs: recs})
		hist := newHistogram(recs, r.Summary.Stalls.ThresholdMS)
		hist.Run = letter + " " + cr.Label
		p.Histograms = append(p.Histograms, hist)
		picked, _ := selectStreams(recs, maxTimelines/len(c.Runs))
		p.Streams = append(p.Streams, streams(picked, letter)...)
		p.Columns = append(p.Columns, letter)
	}
	p.Selection = fmt.Sprintf("Timelines of up to %d streams of each run (the slowest, the longest stalls and a sample when a run has more): %d in all.", maxTimelines/len(c.Runs), len(p.Streams))
	p.Scatter = newScatter(runs, c.Runs[0].Summary.Stalls.ThresholdMS)
	for _, s := range c.Sections {
		p.Sections = append(p.Sections, cmpSectionOf(s))
	}
	for _, g := range c.Gates {
		p.Gates = append(p.Gates, gate{Run: compare.Letter(g.RunIndex), Expr: g.Expr, Message: g.Message, Tripped: g.Tripped})
	}
	return p
}

func cmpSectionOf(s compare.Section) cmpSection {
	out := cmpSection{Title: s.Title}
	for _, r := range s.Rows {
		row := cmpRow{Label: r.Label}
		for i, v := range r.Values {
			cell := cmpCell{Value: compare.FormatValue(r, v), Base: i == 0}
			if s.N != nil {
				cell.Tip = fmt.Sprintf("%s %s of %s: n=%d", r.Label, s.Title, compare.Letter(i), s.N[i])
			}
			if d := deltaOf(r, i); d != nil {
				cell.Abs, cell.Pct, cell.Marks, cell.Worse = compare.FormatDeltaAbs(r, d), compare.FormatDeltaPct(d), compare.Marks(d), d.Worse
				if d.CI != nil {
					cell.CI = "[" + textfmt.Num(&d.CI.Lo) + ", " + textfmt.Num(&d.CI.Hi) + "]"
					if r.Unit == "ms" {
						cell.CI = "[" + textfmt.MS(d.CI.Lo) + ", " + textfmt.MS(d.CI.Hi) + "]"
					}
					cell.Tip += "; " + compare.NoiseVerdict(r, d)
				}
			}
			row.Cells = append(row.Cells, cell)
		}
		out.Rows = append(out.Rows, row)
	}
	return out
}

// deltaOf is run i's change in a row, nil for the baseline.
func deltaOf(r compare.Row, i int) *compare.Delta {
	if i < len(r.Deltas) {
		return r.Deltas[i]
	}
	return nil
}
