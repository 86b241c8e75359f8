package views

import (
	"fmt"
	"math"
	"strings"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// TTFTFigures is a TTFT panel's note: the p50 and p99 of d, with their n,
// as the summary computes them ("p50 181 ms · p99 189 ms · n=4"); "n=0"
// before the first token, never a 0 ms.
func TTFTFigures(d stats.Dist) string {
	if d.P50 == nil || d.P99 == nil {
		return fmt.Sprintf("n=%d", d.N)
	}
	return fmt.Sprintf("p50 %s · p99 %s · n=%d", textfmt.MS(*d.P50), textfmt.MS(*d.P99), d.N)
}

// TTFTRuns is the TTFT of each run, a bar each, oldest first and the last
// run (the current one, in the brighter style) at the bottom: as many of
// the latest as fit, those left out counted in the first row. A run
// without a first token says why ("no first token", or "waiting…" while
// it runs) instead of a bar of 0. Bars share one scale, the largest TTFT
// filling the width. Warmup runs are marked as on the timeline (#1w).
func TTFTRuns(runs []*record.Record, live bool, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if len(runs) == 0 {
		return Note("no run yet", width, height, st)
	}
	shown := runs
	var lines []string
	if len(runs) > height {
		shown = runs[len(runs)-(height-1):]
		lines = append(lines, st.Dim.Render(fmt.Sprintf("%d earlier runs above", len(runs)-len(shown))))
	}
	most, labelW, valueW := 0.0, 0, 0
	for _, r := range shown {
		if r.TTFTMS != nil {
			most = math.Max(most, *r.TTFTMS)
			valueW = max(valueW, len(textfmt.MS(*r.TTFTMS)))
		}
		labelW = max(labelW, len(RunLabel(r.Seq+1, r)))
	}
	barW := max(1, width-labelW-valueW-2)
	for i, r := range shown {
		cur := i == len(shown)-1
		line := st.Label.Render(fmt.Sprintf("%-*s ", labelW, RunLabel(r.Seq+1, r)))
		bar := st.Earlier
		if cur {
			bar = st.Value
		}
		switch {
		case r.TTFTMS != nil:
			n := max(1, int(math.Round(*r.TTFTMS/max(most, 1e-9)*float64(barW))))
			line += bar.Render(strings.Repeat("█", n)) + " " + st.Value.Render(textfmt.MS(*r.TTFTMS))
		case cur && live:
			line += st.Live.Render("waiting…")
		default:
			line += st.Undefined.Render("— no first token")
		}
		lines = append(lines, line)
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, height)
}
