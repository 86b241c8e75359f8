package compare

import (
	"fmt"
	"slices"

	"github.com/driplab/drip/stats"
)

// noIntervalWords say why a difference has no interval.
var noIntervalWords = fmt.Sprintf("no interval: fewer than %d streams with samples in a run", stats.MinNoiseStreams)

const (
	// noiseSeed seeds every interval, so the same files always give the
	// same intervals.
	noiseSeed   = 0
	noiseMethod = "percentile bootstrap of the difference (run − baseline), resampling whole streams with replacement"
)

// Noise states how the intervals of the differences were computed.
type Noise struct {
	Method     string  `json:"method"`
	Resamples  int     `json:"resamples"`
	Confidence float64 `json:"confidence"`
	Seed       uint64  `json:"seed"`
}

// noiseLine is one difference the noise block lists, a metric's p50 or
// p95 in one run against A, and what its interval says.
type noiseLine struct {
	metric, run, verdict string
	none                 bool // no interval: too few streams with samples
}

// withoutIntervals splits off the runs none of whose lines has an
// interval (a run of one or two streams), so that the text report says
// so once for each instead of on every line.
func withoutIntervals(lines []noiseLine) (kept []noiseLine, runs []string) {
	all := map[string]bool{}
	for _, n := range lines {
		if _, seen := all[n.run]; !seen {
			all[n.run] = true
			runs = append(runs, n.run)
		}
		all[n.run] = all[n.run] && n.none
	}
	runs = slices.DeleteFunc(runs, func(r string) bool { return !all[r] })
	for _, n := range lines {
		if !all[n.run] {
			kept = append(kept, n)
		}
	}
	return kept, runs
}

// noiseLines are the p50 and p95 differences of every section with
// samples, run by run, for the noise block of the text and Markdown
// reports.
func noiseLines(c *Comparison) []noiseLine {
	var out []noiseLine
	for _, sec := range c.Sections {
		if sec.N == nil {
			continue
		}
		for _, r := range sec.Rows {
			if r.Label != "p50" && r.Label != "p95" {
				continue
			}
			for i := 1; i < len(r.Values); i++ {
				d := r.Deltas[i]
				out = append(out, noiseLine{sec.Key + " " + r.Label, Letter(i), NoiseVerdict(r, d), d == nil || d.CI == nil})
			}
		}
	}
	return out
}
