package htmlreport

import (
	"fmt"
	"math"
	"strings"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// The scatter's plot area, inside a margin for the axis labels.
const (
	scW, scH, scLeft, scBottom = 640.0, 360.0, 56.0, 28.0
	// scMaxTipped is how many points get their own hover figures. Past it
	// the points of a series are one path, and the quadrants' counts say
	// how many are where.
	scMaxTipped = 2000
)

// scatter plots each stream's TTFT (x) against its gap p99 (y), split
// where drip's diagnosis splits them, TTFT at stats.QueueTTFTMS and gaps
// at the stall threshold.
type scatter struct {
	Points []point
	Bulk   []bulk // past scMaxTipped, one path of dots per series
	XTicks []axisTick
	YTicks []axisTick
	QueueX float64
	StallY float64
	// QueueAt and StallAt are the splits in words, such as "1 s" and "250 ms".
	QueueAt, StallAt string
	Quads            []quad
	Series           []series
	Skipped          int
	Note             string
}

type point struct {
	Class, D, Tip string
}

type bulk struct{ Class, D string }

type quad struct {
	X, Y   float64
	Anchor string
	Label  string
	Tip    string
}

type series struct{ Letter, Label, Class, D string }

// seriesShape draws series i's marker at (x, y). It is a circle, a square,
// a triangle or a diamond, then the same again, so series are told apart without colour.
func seriesShape(i int, x, y float64) string {
	const r = 3.0
	switch i % 4 {
	case 1:
		return fmt.Sprintf("M%s %sh6v6h-6z", num(x-r), num(y-r))
	case 2:
		return fmt.Sprintf("M%s %sl3.5 6h-7z", num(x), num(y-r-0.5))
	case 3:
		return fmt.Sprintf("M%s %sl4 4l-4 4l-4 -4z", num(x), num(y-4))
	}
	return fmt.Sprintf("M%s %sa3 3 0 1 0 6 0a3 3 0 1 0 -6 0", num(x-r), num(y))
}

// scatterRun is one series of the scatter, a run's measured records.
type scatterRun struct {
	Letter, Label string
	Recs          []*record.Record
}

func newScatter(runs []scatterRun, stallMS float64) scatter {
	var sc scatter
	type pt struct {
		views.ScatterPoint
		r *record.Record
	}
	var pts []pt
	xMax, yMax := 1.25*stats.QueueTTFTMS, 1.5*stallMS
	for i, run := range runs {
		for _, r := range run.Recs {
			p, ok := views.PointOf(i, r)
			if !ok {
				sc.Skipped++
				continue
			}
			pts = append(pts, pt{p, r})
			xMax, yMax = max(xMax, p.TTFTMS*1.05), max(yMax, p.GapMS*1.05)
		}
	}
	xMax, yMax = niceCeil(xMax), niceCeil(yMax)
	x := func(v float64) float64 { return r1(scLeft + v/xMax*(scW-scLeft-8)) }
	y := func(v float64) float64 { return r1((scH - scBottom) - v/yMax*(scH-scBottom-8)) }
	sc.QueueX, sc.StallY = x(stats.QueueTTFTMS), y(stallMS)
	sc.QueueAt, sc.StallAt = textfmt.MS(stats.QueueTTFTMS), textfmt.MS(stallMS)
	counts := [4]int{}
	paths := make([]strings.Builder, len(runs))
	for _, p := range pts {
		counts[quadrant(p.ScatterPoint, stallMS)]++
		d := seriesShape(p.Series, x(p.TTFTMS), y(p.GapMS))
		if len(pts) > scMaxTipped {
			paths[p.Series].WriteString(d)
			continue
		}
		tip := fmt.Sprintf("%s%s · ttft %s · gap p99 %s", runs[p.Series].Letter, views.RunLabel(p.r.Seq+1, p.r), textfmt.MS(p.TTFTMS), textfmt.MS(p.GapMS))
		sc.Points = append(sc.Points, point{Class: fmt.Sprintf("pt s%d", p.Series%5), D: d, Tip: tip})
	}
	for i := range paths {
		if paths[i].Len() > 0 {
			sc.Bulk = append(sc.Bulk, bulk{fmt.Sprintf("pt s%d", i%5), paths[i].String()})
		}
	}
	sc.Quads = quads(counts, sc.QueueX, sc.StallY, len(pts))
	sc.XTicks, sc.YTicks = ticksOn(xMax, x), ticksOn(yMax, y)
	sc.XTicks[len(sc.XTicks)-1].Anchor = "end"
	if len(runs) > 1 {
		for i, run := range runs {
			sc.Series = append(sc.Series, series{run.Letter, run.Label, fmt.Sprintf("pt s%d", i%5), seriesShape(i, 6, 6)})
		}
	}
	sc.Note = scatterNote(len(pts), sc.Skipped)
	return sc
}

func scatterNote(n, skipped int) string {
	s := fmt.Sprintf("%s, each at its TTFT and gap p99", stats.Count(n, "stream"))
	if skipped > 0 {
		s += fmt.Sprintf("; %d without a TTFT or a gap are not drawn (never at 0)", skipped)
	}
	if n > scMaxTipped {
		s += fmt.Sprintf("; past %d points hover shows the quadrants' counts, not each point", scMaxTipped)
	}
	return s
}

// quadrant is where a point falls, 0 healthy, 1 queue, 2 transport or 3 both.
func quadrant(p views.ScatterPoint, stallMS float64) int {
	q := 0
	if p.TTFTMS >= stats.QueueTTFTMS {
		q++
	}
	if p.GapMS >= stallMS {
		q += 2
	}
	return q
}

func quads(counts [4]int, qx, sy float64, n int) []quad {
	names := [4]string{"healthy", "queue", "transport", "both"}
	at := [4][2]float64{{scLeft + 6, scH - scBottom - 6}, {scW - 10, scH - scBottom - 6}, {scLeft + 6, 16}, {scW - 10, 16}}
	var out []quad
	for i, name := range names {
		anchor := "start"
		if i%2 == 1 {
			anchor = "end"
		}
		out = append(out, quad{X: at[i][0], Y: at[i][1], Anchor: anchor, Label: fmt.Sprintf("%s (%d)", name, counts[i]),
			Tip: fmt.Sprintf("%s: %d of %d streams", name, counts[i], n)})
	}
	return out
}

// ticksOn are five round values from 0 to top on an axis.
func ticksOn(top float64, at func(float64) float64) []axisTick {
	var out []axisTick
	for i := 0; i <= 5; i++ {
		v := top * float64(i) / 5
		out = append(out, axisTick{X: at(v), Label: textfmt.MS(v)})
	}
	return out
}

// niceCeil rounds v up to a 1-2-5 step of a fifth of it, so the axis's
// five ticks are round.
func niceCeil(v float64) float64 {
	step := math.Pow(10, math.Floor(math.Log10(v/5)))
	for _, m := range []float64{1, 2, 5, 10} {
		if v/5 <= m*step {
			step *= m
			break
		}
	}
	return math.Ceil(v/step) * step
}
