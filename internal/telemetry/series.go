package telemetry

import (
	"github.com/prometheus/client_golang/prometheus"

	"github.com/driplab/drip/stats"
)

// CountBuckets are the histogram boundaries of the figures that are not
// times (tokens, tokens per second). They run from 1 to past 800,000,
// each BucketFactor times the last.
var CountBuckets = prometheus.ExponentialBuckets(1, BucketFactor, 62)

// divisor turns a metric's figure into the unit sent. Times drip holds in
// ms are sent in seconds, and any other figure as it is.
func divisor(m *stats.Metric) float64 {
	if m.Unit == "ms" {
		return 1000
	}
	return 1
}

// help describes a metric's series by its definition and the streams it
// counts (docs/records.md, Definitions).
func help(m *stats.Metric) string {
	of := "measured streams"
	if m.Completed {
		of = "completed streams"
	}
	return m.Definition + " (drip's " + m.JSON + "), " + of + "."
}
