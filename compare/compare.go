// Package compare puts two or more recorded runs side by side. New takes
// each run's records as an Input and returns a Comparison against the
// first run, the baseline. The runs are the files read, or groups of their
// pooled records by a field (Options.By). Grouped by level, the Comparison
// also holds the sweep the records ran. Each run's summary is recomputed
// from its raw records. Every figure gets a delta against the baseline
// that knows which direction is worse. The p50 and p95 differences carry a
// bootstrap interval (stats.BootstrapDiff), so a change within run-to-run
// noise says so. A workload check lists what differs between the runs
// besides the system under test, and a gate can be relative to the
// baseline. The package is pure, records in and a Comparison out. Text,
// Markdown and JSON render one here, and the views and tui packages draw
// it on a terminal.
package compare

import (
	"errors"
	"maps"
	"math"
	"slices"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// WorsePct is the size of a change in the worse direction that is marked.
const WorsePct = 10.0

// Input is one run as read from a record file.
type Input struct {
	Label   string
	Source  string // the file it came from
	Records []*record.Record
	Skipped []string // partial lines the reader skipped
}

// Run is an input with its summary, recomputed from the raw records.
type Run struct {
	Input
	Summary stats.Summary
	// settings are the workload facts the banner compares, by setting.
	settings map[string]string
	// measured are the records in the measure phase.
	measured []*record.Record
}

// Comparison is everything a renderer needs, the runs, the rows of figures
// with their deltas, the workload differences and the gate verdicts.
type Comparison struct {
	Runs     []Run        // Runs[0] is the baseline
	Workload []Difference // empty when the workloads match
	Sections []Section
	// Prompts break the figures down per prompt id when every run has the
	// same two or more prompt ids, and are nil otherwise.
	Prompts []Prompt
	Noise   Noise
	// Readings say, per run, which clocks moved beyond noise and what
	// that points at (transport or queue).
	Readings []Reading
	Gates    []GateResult
	// Levels is the sweep the records ran, recomputed from them, when the
	// runs are grouped by level (Options.By). It is nil otherwise.
	Levels *sweep.Result
}

// Section is a group of rows, the stream accounting, one latency
// distribution, stalls, tokens or throughput.
type Section struct {
	Key   string // "streams", "ttft", …
	Title string // "ttft ms"
	N     []int  // sample count per run for a distribution, nil otherwise
	Rows  []Row
}

// Row is one figure in every run.
type Row struct {
	Key    string // the --fail-if spelling where there is one, as "ttft.p95"
	Label  string // "p95", "completed"
	Unit   string // "ms", "tok/s", "%" or ""
	Better stats.Better
	Count  bool       // streams, stalls or tokens counted, fewer while a run is measured
	Values []*float64 // per run, nil where undefined
	Deltas []*Delta   // per run, nil for the baseline
}

// Delta is one run's figure against the baseline's.
type Delta struct {
	Abs   *float64 `json:"abs"` // run − baseline, nil when either is undefined
	Pct   *float64 `json:"pct"` // Abs as a percentage of the baseline, nil when the baseline is 0 and the run's is not (0 → 0 is 0%)
	Worse bool     `json:"worse"`
	// CI is the bootstrap interval of the difference (p50 and p95 rows of
	// latency distributions). It is nil when either run has too few
	// streams.
	CI          *stats.Interval `json:"ci,omitempty"`
	WithinNoise bool            `json:"within_noise,omitempty"`
}

// Prompt is the per-prompt breakdown of one prompt id.
type Prompt struct {
	ID       string
	Sections []Section
}

// Options tune a comparison.
type Options struct {
	// By, when set, pools the records of every input and compares them
	// grouped by this field or label, as GroupBy splits them. By "level"
	// also recomputes the sweep the records ran, as Comparison.Levels.
	By    string
	Gates []stats.Gate // judged on every run but the baseline
}

// New compares runs against the first. Each run's summary is recomputed
// from its records with stats.Aggregate. An error says why the runs
// cannot be grouped or compared, in words for the command line.
func New(inputs []Input, o Options) (*Comparison, error) {
	inputs, levels, err := group(inputs, o.By)
	if err != nil {
		return nil, err
	}
	if len(inputs) < 2 {
		return nil, errors.New("compare needs at least two runs")
	}
	c := &Comparison{Levels: levels, Noise: Noise{Method: noiseMethod, Resamples: stats.DefaultResamples, Confidence: stats.IntervalConfidence, Seed: noiseSeed}}
	for _, in := range inputs {
		c.Runs = append(c.Runs, newRun(in))
	}
	c.Workload = differences(c.Runs)
	sides := make([]side, len(c.Runs))
	for i := range c.Runs {
		sides[i] = side{recs: c.Runs[i].measured, sum: &c.Runs[i].Summary}
	}
	c.Sections = sections(sides, runSpecs(sides), c.Noise, "")
	c.Prompts = prompts(c.Runs, c.Noise)
	c.Readings = readings(c)
	c.Gates = evalGates(o.Gates, c.Runs)
	return c, nil
}

// group regroups the inputs by the field by, when it is set. By "level"
// also recomputes the sweep the records ran, from all of them.
func group(inputs []Input, by string) ([]Input, *sweep.Result, error) {
	if by == "" {
		return inputs, nil, nil
	}
	var levels *sweep.Result
	if by == "level" {
		var recs []*record.Record
		for _, in := range inputs {
			recs = append(recs, in.Records...)
		}
		levels = sweep.OfRecords(recs)
	}
	inputs, err := GroupBy(inputs, by)
	return inputs, levels, err
}

// Tripped reports whether any gate tripped.
func (c *Comparison) Tripped() bool {
	return slices.ContainsFunc(c.Gates, func(g GateResult) bool { return g.Tripped })
}

// Summarize is an input's summary as a comparison recomputes it.
func Summarize(in Input) stats.Summary { return newRun(in).Summary }

func newRun(in Input) Run {
	r := Run{Input: in}
	stall := stats.DefaultStall
	for _, rec := range in.Records {
		if rec.Phase != record.PhaseWarmup {
			r.measured = append(r.measured, rec)
		}
	}
	if len(in.Records) > 0 {
		stall = in.Records[0].StallMS
	}
	agg := stats.NewAggregate(stall)
	for _, rec := range in.Records {
		agg.Add(rec)
	}
	r.settings = settingsOf(in.Records)
	r.Summary = agg.Summary(workloadOf(in.Records, r.measured))
	return r
}

// side is one run's measured records and summary, for building rows.
type side struct {
	recs []*record.Record
	sum  *stats.Summary
}

// spec is how to read one row from a summary, and its raw observations
// per stream when the row gets a bootstrap interval.
type spec struct {
	section, key, label, unit string
	better                    stats.Better
	value                     func(*stats.Summary) *float64
	count                     func(*stats.Summary) int       // a count (value unset), which grows as a run is measured
	obs                       func(*record.Record) []float64 // nil for no interval
	pct                       float64                        // the percentile the interval is for
}

// distRows are the rows of a distribution. p50 and p95 get intervals.
func distRows(m stats.Metric, names ...string) []spec {
	var out []spec
	for _, st := range names {
		s := spec{section: m.Key, key: m.Key + "." + st, label: st, unit: m.Unit, better: m.Better,
			value: func(sum *stats.Summary) *float64 { v, _ := sum.Metrics[m.JSON].Stat(st); return v }}
		switch st {
		case "p50":
			s.obs, s.pct = m.Observations, 50
		case "p95":
			s.obs, s.pct = m.Observations, 95
		}
		out = append(out, s)
	}
	return out
}

// runSpecs are the rows of the whole-run table, accounting (with a row for
// every failure class any run saw), the distributions, stalls, tokens and
// throughput.
func runSpecs(sides []side) []spec {
	specs := []spec{
		{section: "streams", key: "attempted", label: "attempted", count: func(s *stats.Summary) int { return s.Streams.Attempted }},
		{section: "streams", key: "completed", label: "completed", better: stats.HigherIsBetter, count: func(s *stats.Summary) int { return s.Streams.Completed }},
		{section: "streams", key: "failed", label: "failed", better: stats.LowerIsBetter, count: func(s *stats.Summary) int { return s.Streams.Failed }},
	}
	classes := map[string]bool{}
	for _, sd := range sides {
		for c := range sd.sum.Streams.FailedBy {
			classes[c] = true
		}
	}
	for _, c := range slices.Sorted(maps.Keys(classes)) {
		specs = append(specs, spec{section: "streams", key: "failed." + c, label: "failed " + sanitize.Line(c), better: stats.LowerIsBetter,
			count: func(s *stats.Summary) int { return s.Streams.FailedBy[c] }})
	}
	specs = append(specs,
		spec{section: "streams", key: "incomplete", label: "incomplete", better: stats.LowerIsBetter, count: func(s *stats.Summary) int { return s.Streams.Incomplete }},
		spec{section: "streams", key: "canceled", label: "canceled", count: func(s *stats.Summary) int { return s.Streams.Canceled }},
		spec{section: "streams", key: "buffered", label: "buffered", better: stats.LowerIsBetter, count: func(s *stats.Summary) int { return s.Streams.Buffered }},
	)
	for _, d := range stats.MetricsIn(stats.InCompare) {
		specs = append(specs, distRows(d, "p50", "p95", "p99", "max")...)
	}
	specs = append(specs,
		spec{section: "stalls", key: "stalls", label: "stalls", better: stats.LowerIsBetter, count: func(s *stats.Summary) int { return s.Stalls.Count }},
		spec{section: "stalls", key: "stalls.mid_sentence", label: "mid-sentence", better: stats.LowerIsBetter, count: func(s *stats.Summary) int { return s.Stalls.MidSentence }},
		spec{section: "stalls", key: "streams_with_stall", label: "streams stalled", better: stats.LowerIsBetter, count: func(s *stats.Summary) int { return s.Stalls.StreamsWithStall }},
		spec{section: "stalls", key: "stalls.longest", label: "longest", unit: "ms", better: stats.LowerIsBetter, value: func(s *stats.Summary) *float64 { return s.Stalls.LongestMS }},
		spec{section: "tokens", key: "output_tokens", label: "output tokens", count: func(s *stats.Summary) int { return s.Throughput.OutputTokens }},
		spec{section: "tokens", key: "output_tokens.p50", label: "per stream p50", value: func(s *stats.Summary) *float64 { return stats.OutputTokens.Of(s.Metrics).P50 }},
		spec{section: "tokens", key: "tokens_approx_pct", label: "approximated %", unit: "%", value: func(s *stats.Summary) *float64 { return s.TokensApproxPct }},
		spec{section: "throughput", key: "throughput", label: "tokens/s", unit: "tok/s", better: stats.HigherIsBetter, value: func(s *stats.Summary) *float64 { return s.Throughput.TokensPerS }},
		spec{section: "throughput", key: "tps_user.p50", label: "tps/user p50", unit: "tok/s", better: stats.HigherIsBetter, value: func(s *stats.Summary) *float64 { return stats.TPSUser.Of(s.Metrics).P50 }},
		spec{section: "throughput", key: "tps_user.mean", label: "tps/user mean", unit: "tok/s", better: stats.HigherIsBetter, value: func(s *stats.Summary) *float64 { return s.Throughput.MeanTPSUser }},
		spec{section: "throughput", key: "streams_per_s", label: "streams/s", unit: "/s", better: stats.HigherIsBetter, value: func(s *stats.Summary) *float64 { return s.Throughput.StreamsPerS }},
	)
	return specs
}

// promptSpecs are the rows of a per-prompt breakdown.
func promptSpecs() []spec {
	specs := []spec{
		{section: "streams", key: "completed", label: "completed", better: stats.HigherIsBetter, count: func(s *stats.Summary) int { return s.Streams.Completed }},
		{section: "streams", key: "failed", label: "failed", better: stats.LowerIsBetter, count: func(s *stats.Summary) int { return s.Streams.Failed }},
	}
	for _, d := range stats.MetricsIn(stats.InCompare) {
		switch d.Key {
		case stats.TTFT.Key, stats.E2E.Key:
			specs = append(specs, distRows(d, "p50", "p95")...)
		case stats.Gap.Key:
			specs = append(specs, distRows(d, "p95", "p99")...)
		}
	}
	return append(specs, spec{section: "stalls", key: "stalls.mid_sentence", label: "mid-sentence", better: stats.LowerIsBetter,
		count: func(s *stats.Summary) int { return s.Stalls.MidSentence }})
}

// sections builds the rows of specs for every run, grouped in order.
// scope tells apart the bootstrap seeds of per-prompt tables.
func sections(sides []side, specs []spec, nz Noise, scope string) []Section {
	var out []Section
	for _, sp := range specs {
		if len(out) == 0 || out[len(out)-1].Key != sp.section {
			sec := Section{Key: sp.section, Title: sp.section}
			if m, ok := stats.MetricByKey(sp.section); ok && m.Out&stats.InCompare != 0 {
				sec.Title = m.Label
				for _, sd := range sides {
					sec.N = append(sec.N, sd.sum.Metrics[m.JSON].N)
				}
			}
			out = append(out, sec)
		}
		out[len(out)-1].Rows = append(out[len(out)-1].Rows, row(sides, sp, nz, scope))
	}
	return out
}

func row(sides []side, sp spec, nz Noise, scope string) Row {
	r := Row{Key: sp.key, Label: sp.label, Unit: sp.unit, Better: sp.better, Count: sp.count != nil}
	for _, sd := range sides {
		if r.Count {
			r.Values = append(r.Values, new(float64(sp.count(sd.sum))))
		} else {
			r.Values = append(r.Values, sp.value(sd.sum))
		}
	}
	r.Deltas = make([]*Delta, len(sides))
	for i := 1; i < len(sides); i++ {
		d := delta(r.Values[0], r.Values[i], sp.better)
		if sp.obs != nil {
			rng := stats.IntervalRNG(nz.Seed, scope, sp.key, i)
			d.CI = stats.BootstrapDiff(observations(sides[0].recs, sp.obs), observations(sides[i].recs, sp.obs), sp.pct, nz.Resamples, rng)
			d.WithinNoise = d.CI != nil && d.CI.Lo <= 0 && d.CI.Hi >= 0
		}
		r.Deltas[i] = d
	}
	return r
}

// delta compares a run's figure with the baseline's. A change of WorsePct
// or more in the worse direction is worse, and so is any worsening of a
// baseline of 0 (no failures before, some now).
func delta(base, v *float64, better stats.Better) *Delta {
	d := &Delta{}
	if base == nil || v == nil {
		return d
	}
	abs := *v - *base
	d.Abs = new(abs)
	switch {
	case *base != 0:
		d.Pct = new(abs / math.Abs(*base) * 100)
	case abs == 0:
		d.Pct = new(0.0)
	}
	worseDir := (better == stats.LowerIsBetter && abs > 0) || (better == stats.HigherIsBetter && abs < 0)
	d.Worse = worseDir && (d.Pct == nil || math.Abs(*d.Pct) >= WorsePct)
	return d
}

// observations are the raw observations of each stream, for streams that
// have any.
func observations(recs []*record.Record, obs func(*record.Record) []float64) [][]float64 {
	var out [][]float64
	for _, r := range recs {
		if o := obs(r); len(o) > 0 {
			out = append(out, o)
		}
	}
	return out
}

// prompts breaks the comparison down per prompt id when every run has the
// same set of two or more.
func prompts(runs []Run, nz Noise) []Prompt {
	ids := promptIDs(runs[0].measured)
	if len(ids) < 2 {
		return nil
	}
	for _, r := range runs[1:] {
		if !slices.Equal(ids, promptIDs(r.measured)) {
			return nil
		}
	}
	var out []Prompt
	for _, id := range ids {
		sub := make([]Run, len(runs))
		sides := make([]side, len(runs))
		for i, r := range runs {
			var recs []*record.Record
			for _, rec := range r.Records {
				if rec.PromptID == id {
					recs = append(recs, rec)
				}
			}
			sub[i] = newRun(Input{Records: recs})
			sides[i] = side{recs: sub[i].measured, sum: &sub[i].Summary}
		}
		out = append(out, Prompt{ID: id, Sections: sections(sides, promptSpecs(), nz, "prompt "+id)})
	}
	return out
}

func promptIDs(recs []*record.Record) []string {
	set := map[string]bool{}
	for _, r := range recs {
		set[r.PromptID] = true
	}
	return slices.Sorted(maps.Keys(set))
}
