package htmlreport

import (
	"strconv"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// runPage is the report of one run.
type runPage struct {
	Header    header
	Clocks    []clockRow
	Histogram histogram
	Heatmap   heatmap
	Scatter   scatter
	Selection string
	Streams   []stream
	Sweep     *sweepTable
}

// clockRow is one metric of the clocks table, n beside its percentiles.
type clockRow struct {
	Label, Definition string
	N                 string
	Cells             []string // min, p50, p90, p95, p99, max, mean
	Histogram         bool
}

// clockStats are the clocks table's columns.
var clockStats = []string{"min", "p50", "p90", "p95", "p99", "max", "mean"}

func newRunPage(r Run) *runPage {
	s := r.Summary
	recs := measured(r.Records)
	p := &runPage{
		Header:    newHeader(s, r.Records, r.Sweep),
		Clocks:    clockRows(s.Metrics),
		Histogram: newHistogram(recs, s.Stalls.ThresholdMS),
		Heatmap:   newHeatmap(recs, s.Stalls.ThresholdMS),
		Scatter:   newScatter([]scatterRun{{Recs: recs}}, s.Stalls.ThresholdMS),
		Sweep:     newSweepTable(r.Sweep),
	}
	var picked []chosen
	picked, p.Selection = selectStreams(recs, maxTimelines)
	p.Streams = streams(picked, "")
	if len(p.Streams) > 0 {
		p.Streams[0].Open = true
	}
	return p
}

func streams(picked []chosen, letter string) []stream {
	out := make([]stream, len(picked))
	for i, c := range picked {
		out[i] = newStream(c.r.Seq+1, c.r, c.why)
		out[i].Run = letter
	}
	return out
}

// clockRows are the summary's distributions in the text report's order:
// the registry's, held time when the server gave it and the reader's lag
// when the kernel did.
func clockRows(m stats.Metrics) []clockRow {
	var out []clockRow
	for _, reg := range stats.Registry {
		d := m[reg.JSON]
		shown := reg.Key == stats.Held.Key || reg.Key == stats.ReaderLag.Key
		if reg.Out&stats.InText == 0 && (!shown || d.N == 0) {
			continue
		}
		num := textfmt.Num
		switch reg.Unit {
		case "ms":
			num = textfmt.OptMS // a time as every report prints one
		case "":
			num = textfmt.Whole
		}
		row := clockRow{Label: reg.Label, Definition: reg.Definition, N: strconv.Itoa(d.N), Histogram: d.Histogram}
		for _, name := range clockStats {
			v, _ := d.Stat(name)
			row.Cells = append(row.Cells, num(v))
		}
		out = append(out, row)
	}
	return out
}

// sweepTable is a sweep's per-level table and its knee.
type sweepTable struct {
	Head    []string
	Rows    [][]string
	Marks   []string
	Verdict string
	Units   string
}

func newSweepTable(r *sweep.Result) *sweepTable {
	if r == nil {
		return nil
	}
	cols, rows, marks := sweep.Cells(r)
	t := &sweepTable{Rows: rows, Marks: marks, Verdict: sweep.Verdict(r), Units: sweep.Units}
	for _, c := range cols {
		t.Head = append(t.Head, c.Title)
	}
	return t
}
