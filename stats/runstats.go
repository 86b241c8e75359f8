package stats

// Bounds of a run that is limited by drip itself, not the target.
const (
	// ScheduleLagBoundMS is the p99 schedule lag above which an open-loop
	// run is flagged client-limited. Beyond it the generator, not the
	// schedule, shapes the load.
	ScheduleLagBoundMS = 10.0
	// CatchUpPolicy is what the open loop does with an arrival whose time
	// has passed.
	CatchUpPolicy = "a late arrival is sent at once, never skipped; its lag counts in the user view"
)

// ClientLagBoundMS is the p99 of drip's own scheduling latency at or above
// which a run is client-limited. When goroutines wait this long for a core
// after they became runnable, every read, write and timer of a stream is
// late by about as much, and millisecond figures describe this machine.
const ClientLagBoundMS = 10.0

// clientLagMinSamples is the fewest sampled wake-ups whose p99 is a tail.
// With fewer, the p99 is one hiccup (a few streams give a few dozen).
const clientLagMinSamples = 100

// ClientLagShare is the share of the TTFT p50 that the lag's p99 must also
// reach before the lag explains the latency. 12 ms of lag under a 180 ms
// TTFT (300 streams on 2 cores) is a tail, not the figure.
const ClientLagShare = 0.1

// RunStats is what the runner saw beyond the records. It holds admission
// and, in an open loop, how closely the generator kept to its schedule.
type RunStats struct {
	NotAdmitted int
	// Lag is the generator's lag behind the schedule per arrival, woken −
	// intended, in ms.
	Lag           Dist
	LagBoundMS    float64
	ClientLimited bool // Lag p99 over LagBoundMS
	// SchedLatency is how long drip's goroutines waited runnable before
	// they ran while the measured streams ran, in ms. It comes from the Go
	// runtime's histogram, so each figure is a bucket's upper edge.
	SchedLatency Dist
	lag          *Sampler // Lag's observations, for CombineRunStats
}

// CombineRunStats pools what the runner saw over several runs of one plan,
// such as a sweep's levels. Not-admitted arrivals add up and schedule lags
// pool.
func CombineRunStats(parts ...RunStats) RunStats {
	lag, notAdmitted := &Sampler{}, 0
	for _, p := range parts {
		notAdmitted += p.NotAdmitted
		if p.lag != nil {
			lag.Merge(p.lag)
		}
	}
	return NewRunStats(notAdmitted, lag)
}

// NewRunStats is an open loop's run stats from its not-admitted arrivals
// and its schedule lags (ms).
func NewRunStats(notAdmitted int, lag *Sampler) RunStats {
	st := RunStats{NotAdmitted: notAdmitted, LagBoundMS: ScheduleLagBoundMS, lag: lag}
	st.Lag = lag.Dist()
	st.ClientLimited = st.Lag.P99 != nil && *st.Lag.P99 > st.LagBoundMS
	return st
}
