package views

import (
	"fmt"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// sweepRecords are 8 streams a level of concurrency 1,2,4,8 against 4
// slots: past 4, half of them wait a whole stream for their first word.
func sweepRecords(t *testing.T) []*record.Record {
	var recs []*record.Record
	for _, lv := range []float64{1, 2, 4, 8} {
		per := min(int(lv), 4)
		for i := range 8 {
			ttft := 180.0 + float64(i%3)
			if lv > 4 && i%8 >= 4 {
				ttft += 600
			}
			r := &record.Record{Phase: record.PhaseMeasure, Level: &lv, RunOffsetMS: float64(i/per) * 700}
			at := ttft
			for j := range 20 {
				r.Frames = append(r.Frames, record.Frame{TMS: at, Read: j, Kind: adapters.KindContent, Text: " w"})
				at += 25
			}
			r.Frames = append(r.Frames, record.Frame{TMS: at, Read: 20, Kind: adapters.KindEnd})
			r.DurationMS = at
			if err := stats.Derive(r, stats.DefaultStall); err != nil {
				t.Fatal(err)
			}
			recs = append(recs, r)
		}
	}
	return recs
}

func TestSweepPanel(t *testing.T) {
	st := NewStyles(true, false)
	levels := sweep.FromRecords(sweep.KindConcurrency, sweepRecords(t))
	planned := []float64{1, 2, 4, 8, 16}
	four, sixteen := 4.0, 16.0
	cases := map[string]*sweep.Result{
		"running": {Kind: sweep.KindConcurrency, Planned: planned, Levels: levels[:2], Running: &four},
		"knee":    {Kind: sweep.KindConcurrency, Planned: planned, Levels: levels, Knee: sweep.FindKnee(levels), Running: &sixteen},
		"empty":   {Kind: sweep.KindConcurrency, Planned: planned},
	}
	for name, r := range cases {
		for _, size := range [][2]int{{80, 9}, {120, 18}, {200, 10}} {
			w, h := size[0], size[1]
			out := SweepPanel(r, w, h, &st)
			t.Run(fmt.Sprintf("%s/%d", name, w), func(t *testing.T) {
				if lines := strings.Count(out, "\n") + 1; lines > h {
					t.Errorf("%d lines, more than %d", lines, h)
				}
				checkWidth(t, out, w)
				golden.RequireEqual(t, out)
			})
		}
	}
	if k := cases["knee"].Knee; k == nil || k.Level != 8 {
		t.Fatalf("the fixture's knee is %+v; want one at 8", k)
	}
	for _, w := range []int{80, 120, 200} {
		if out := SweepPanel(cases["knee"], w, 18, &st); !strings.Contains(out, "◀ knee") || !strings.Contains(out, "knee: at concurrency 8") {
			t.Errorf("at %d columns the panel lacks the knee mark or its verdict:\n%s", w, out)
		}
	}
}

// An undefined figure, —, is one cell: its row keeps to the columns.
func TestSweepRowsAlignAnUndefinedFigure(t *testing.T) {
	st := NewStyles(true, false)
	levels := sweep.FromRecords(sweep.KindConcurrency, sweepRecords(t))[:2]
	levels[1].Throughput.TokensPerS = nil
	rows := sweepRows(&sweep.Result{Kind: sweep.KindConcurrency, Planned: []float64{1, 2}, Levels: levels}, 200, &st)
	if !strings.Contains(rows[2], "—") {
		t.Fatalf("the level without throughput shows no —: %q", rows[2])
	}
	for _, r := range rows[1:] {
		if w, want := ansi.StringWidth(r), ansi.StringWidth(rows[0]); w != want {
			t.Errorf("row %q is %d cells wide, its header %d", ansi.Strip(r), w, want)
		}
	}
}
