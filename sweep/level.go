package sweep

import (
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Level is one level's figures, from its measured records as a run's
// summary computes them.
type Level struct {
	Level       float64 `json:"level"`
	Kind        string  `json:"-"`
	Concurrency int     `json:"concurrency,omitempty"`
	Rate        float64 `json:"rate,omitempty"`
	// Partial marks a level cut short by an interrupt. The knee skips it.
	Partial     bool          `json:"partial,omitempty"`
	Streams     int           `json:"streams"` // measured streams attempted, admitted or not
	Completed   int           `json:"completed"`
	Failed      int           `json:"failed"`
	Incomplete  int           `json:"incomplete"`
	Canceled    int           `json:"canceled"`
	NotAdmitted int           `json:"not_admitted,omitempty"`
	Warmup      int           `json:"warmup"`
	Metrics     stats.Metrics `json:"metrics"`
	Stalls      stats.Stalls  `json:"stalls"`
	// StallsPerStream is stalls / measured streams recorded, nil with none.
	StallsPerStream *float64         `json:"stalls_per_stream"`
	Throughput      stats.Throughput `json:"throughput"`
	// Goodput is the share of streams meeting the SLO in %, nil without one.
	Goodput *float64 `json:"goodput"`
	// OpenLoop is a rate level's schedule. It holds the generator's lag
	// behind it, the client's queue and the user-view latencies.
	OpenLoop *stats.OpenLoop `json:"open_loop,omitempty"`

	summary stats.Summary // the level as a run, for --stop-when
	obs     observations  // per stream, for the knee's noise intervals
}

// observations are a level's raw observations grouped by stream, the unit
// the bootstrap resamples.
type observations struct {
	ttft, gap [][]float64
}

// levelAcc gathers one level's records as they end.
type levelAcc struct {
	lv   float64
	kind string
	agg  *stats.Aggregate
	obs  observations
}

func newLevelAcc(lv float64, kind string, stallMS float64) *levelAcc {
	if stallMS <= 0 {
		stallMS = stats.DefaultStall
	}
	return &levelAcc{lv: lv, kind: kind, agg: stats.NewAggregate(stallMS)}
}

func (a *levelAcc) add(r *record.Record) {
	a.agg.Add(r)
	if r.Phase == record.PhaseWarmup {
		return
	}
	if r.TTFTMS != nil {
		a.obs.ttft = append(a.obs.ttft, []float64{*r.TTFTMS})
	}
	if g := r.Gaps(); len(g) > 0 {
		a.obs.gap = append(a.obs.gap, g)
	}
}

// level is the level's figures once its run has ended.
// st is what the runner saw, nil for levels read back from records.
func (a *levelAcc) level(st *stats.RunStats, partial bool) Level {
	if st != nil {
		a.agg.SetRun(*st)
	}
	s := a.agg.Summary(stats.Workload{})
	l := Level{
		Level: a.lv, Kind: a.kind, Partial: partial,
		Streams: s.Streams.Attempted, Completed: s.Streams.Completed, Failed: s.Streams.Failed,
		Incomplete: s.Streams.Incomplete, Canceled: s.Streams.Canceled,
		Warmup: s.Streams.Warmup, Metrics: s.Metrics, Stalls: s.Stalls, Throughput: s.Throughput,
		OpenLoop: s.OpenLoop, summary: s, obs: a.obs,
	}
	if st != nil {
		l.NotAdmitted = st.NotAdmitted
	}
	if a.kind == KindRate {
		l.Rate = a.lv
	} else {
		l.Concurrency = int(a.lv)
	}
	if s.Goodput != nil {
		l.Goodput = s.Goodput.Pct
	}
	if n := s.Streams.Admitted; n > 0 {
		l.StallsPerStream = new(float64(s.Stalls.Count) / float64(n))
	}
	return l
}

// FromRecords computes the levels of a sweep from its saved records (those
// with a level), in the order the levels first appear. drip compare --by
// level and a test recomputing a sweep need it. Runner statistics are not
// in records, so a rate level's schedule lag is absent. Its client queue
// and user-view latencies are there.
func FromRecords(kind string, recs []*record.Record) []Level {
	var order []float64
	accs := map[float64]*levelAcc{}
	for _, r := range recs {
		if r.Level == nil {
			continue
		}
		a := accs[*r.Level]
		if a == nil {
			stall := r.StallMS
			a = newLevelAcc(*r.Level, kind, stall)
			accs[*r.Level] = a
			order = append(order, *r.Level)
		}
		a.add(r)
	}
	out := make([]Level, 0, len(order))
	for _, lv := range order {
		out = append(out, accs[lv].level(nil, false))
	}
	return out
}

// KindOf says what records' levels are, rate when they ran in an open loop.
func KindOf(recs []*record.Record) string {
	for _, r := range recs {
		if r.Level != nil && r.Workload != nil && r.Workload.Rate > 0 {
			return KindRate
		}
	}
	return KindConcurrency
}
