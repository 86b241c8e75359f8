package sweep

import (
	"errors"
	"fmt"
	"math"
	"sort"
	"strconv"
	"strings"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Levels are a load's levels as the command line gives them
// (--concurrency, --rate). One value is a run at that load, and a rising
// comma list (1,2,4,8) is a sweep of them. As a flag's value (String, Set, Type)
// every value is checked as it is parsed, so a bad one is an error naming
// the flag.
type Levels struct {
	Vals  []float64
	Whole bool // concurrencies are whole and at least 1, rates within probe's range
}

// String is the levels as the flag takes them, such as 1,2,4,8.
func (l *Levels) String() string {
	s := make([]string, len(l.Vals))
	for i, v := range l.Vals {
		s[i] = LevelNum(v)
	}
	return strings.Join(s, ",")
}

// Type is the value's shape in --help.
func (l *Levels) Type() string {
	if l.Whole {
		return "N[,N...]"
	}
	return "R[,R...]"
}

// Set parses s, the flag's value.
func (l *Levels) Set(s string) error {
	var vals []float64
	for _, part := range strings.Split(s, ",") {
		v, err := strconv.ParseFloat(strings.TrimSpace(part), 64)
		switch {
		case err != nil || math.IsNaN(v) || math.IsInf(v, 0):
			return fmt.Errorf("%q is not a finite number", part)
		case l.Whole && (v < 1 || v != math.Trunc(v) || v > 1e6):
			return fmt.Errorf("%q: must be at least 1, a whole number of streams", part)
		case !l.Whole && (v < probe.MinRate || v > probe.MaxRate):
			return fmt.Errorf("%q: must be a positive number of streams per second, from 0.001 to 1000000", part)
		case len(vals) > 0 && v <= vals[len(vals)-1]:
			return fmt.Errorf("%q: a sweep's levels must rise, e.g. 1,2,4,8", part)
		}
		vals = append(vals, v)
	}
	l.Vals = vals
	return nil
}

// First is the value outside a sweep (def when none was given).
func (l *Levels) First(def float64) float64 {
	if len(l.Vals) == 0 {
		return def
	}
	return l.Vals[0]
}

// Validate checks how long each level runs (Base's Runs and Duration,
// --runs-per-level and --duration-per-level) against the levels.
func (sp *Plan) Validate() error {
	runs, d := sp.Base.Runs, sp.Base.Duration
	switch {
	case runs > probe.MaxStreams:
		return fmt.Errorf("--runs-per-level %d: must be at most %d", runs, probe.MaxStreams)
	case runs < 0 || d < 0:
		return errors.New("--runs-per-level and --duration-per-level must not be negative")
	case runs == 0 && d == 0:
		return errors.New("--runs-per-level 0 needs a --duration-per-level")
	}
	if top := sp.Levels[len(sp.Levels)-1]; sp.Kind == KindConcurrency && runs > 0 && float64(runs) < top {
		return fmt.Errorf("--runs-per-level %d is below concurrency %s: that level would never have %s streams in flight", runs, LevelNum(top), LevelNum(top))
	}
	return nil
}

// ParseStopWhen reads --stop-when's gates. They are absolute, since a
// sweep has no baseline, and goodput needs an SLO to count it by.
func ParseStopWhen(exprs []string, slo *stats.SLO) ([]stats.Gate, error) {
	var gates []stats.Gate
	for _, e := range exprs {
		g, err := stats.ParseGate(e)
		if err != nil {
			return nil, fmt.Errorf("--stop-when: %v", err)
		}
		if g.Relative {
			return nil, fmt.Errorf("--stop-when %q: a relative value needs a baseline; give an absolute one", e)
		}
		if g.Metric == "goodput" && slo == nil {
			return nil, fmt.Errorf("--stop-when %q: goodput is the share of streams meeting --slo: add --slo, e.g. --slo 'ttft<500ms,gap.p99<250ms'", e)
		}
		gates = append(gates, g)
	}
	return gates, nil
}

// Heaviest is the plan of the sweep's heaviest level, the one the GC is
// sized for.
func (sp *Plan) Heaviest() probe.Plan {
	heaviest := sp.Base
	if sp.Kind == KindConcurrency {
		heaviest.Concurrency = int(sp.Levels[len(sp.Levels)-1])
	}
	return heaviest
}

// OfRecords is the sweep in saved records, for drip compare --by level.
// Its levels and knee are recomputed from the records. It is nil when no
// record ran at a level.
func OfRecords(recs []*record.Record) *Result {
	kind := KindOf(recs)
	levels := FromRecords(kind, recs)
	if len(levels) == 0 {
		return nil
	}
	sort.SliceStable(levels, func(i, j int) bool { return levels[i].Level < levels[j].Level })
	r := &Result{Kind: kind, Levels: levels, KneeRule: KneeRule, Knee: FindKnee(levels)}
	for _, l := range levels {
		r.Planned = append(r.Planned, l.Level)
	}
	return r
}
