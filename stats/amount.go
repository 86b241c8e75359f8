package stats

import (
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"time"
)

// TimeUnits lists the units a gate or SLO time takes. They are Go's
// durations, as every duration flag takes them.
const TimeUnits = "ns, us (µs), ms, s, m, h, as Go durations: 800ms, 0.25s, 1m30s"

var (
	numberRE = regexp.MustCompile(`^([0-9]*\.?[0-9]+(?:[eE][+-]?[0-9]+)?)\s*(%|/s)?$`)
	// expTimeRE is a time whose number has an exponent (1e3ms, 2.5e-1s),
	// which time.ParseDuration does not read.
	expTimeRE = regexp.MustCompile(`^([0-9]*\.?[0-9]+[eE][+-]?[0-9]+)\s*(ns|us|µs|μs|ms|s|m|h)$`)
)

// An amount is the value of a gate or SLO term. It is a bare number, a
// share (unit "%"), a rate ("/s") or a time (unit "ms", the value in ms).
type amount struct {
	v    float64
	unit string
}

// parseAmount reads an unsigned VALUE[UNIT]. Its error lists the units.
func parseAmount(text string) (amount, error) {
	if m := numberRE.FindStringSubmatch(text); m != nil {
		v, err := strconv.ParseFloat(m[1], 64)
		if err != nil {
			return amount{}, fmt.Errorf("bad number %q", m[1])
		}
		return amount{v, m[2]}, nil
	}
	compact := strings.ReplaceAll(text, " ", "")
	if m := expTimeRE.FindStringSubmatch(text); m != nil {
		if v, err := strconv.ParseFloat(m[1], 64); err == nil {
			compact = strconv.FormatFloat(v, 'f', -1, 64) + m[2]
		}
	}
	if compact != "" && compact[0] != '+' && compact[0] != '-' {
		if d, err := time.ParseDuration(compact); err == nil {
			return amount{float64(d) / float64(time.Millisecond), "ms"}, nil
		}
	}
	return amount{}, fmt.Errorf("bad value %q: want a number, a share (5%%) or a time in %s", text, TimeUnits)
}

// jsonNameHint is the gate name of a metric named by its key in the
// summary's JSON, such as ttft_ms.p95, metrics.ttft_ms.p95
// or throughput.output_tokens. It is "" when name is no such key.
func jsonNameHint(name string) string {
	name = strings.TrimPrefix(name, "metrics.")
	base, stat, hasStat := strings.Cut(name, ".")
	for _, m := range Registry {
		if m.JSON == base && m.Key != m.JSON && m.Out&InGate != 0 {
			if hasStat {
				return m.Key + "." + stat
			}
			return m.Key
		}
	}
	for gate, sc := range scalars {
		if sc.json == name && gate != name {
			return gate
		}
	}
	return ""
}
