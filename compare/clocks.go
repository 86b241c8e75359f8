package compare

import (
	"fmt"
	"math"
)

// MovedPct is the smallest change, as a share of the baseline's figure,
// that counts as a clock moving, on top of the interval excluding 0: on a
// busy machine a 1% shift can be beyond noise and still mean nothing.
const MovedPct = 5.0

// MovedRule states when a clock moved.
var MovedRule = fmt.Sprintf("a clock moved when the 95%% bootstrap interval of its p50 or p95 difference excludes 0 and the difference is at least %g%% of the baseline's figure", MovedPct)

// clocks are the figures the reading is about, in report order.
var clocks = []string{"ttft", "gap", "itl", "e2e", "tail"}

// ClockMove is whether one clock of a run moved against the baseline.
type ClockMove struct {
	Clock string `json:"clock"`
	// Moved is nil when neither p50 nor p95 has an interval (too few
	// streams), so the data cannot tell.
	Moved    *bool  `json:"moved"`
	Evidence string `json:"evidence"`
}

// Reading is what the clocks of one run say against the baseline: which
// moved, and whether that points at the transport or at a queue before
// generation.
type Reading struct {
	Run     int         `json:"run"`
	Label   string      `json:"label"`
	Clocks  []ClockMove `json:"clocks"`
	Verdict string      `json:"verdict"`
	Rule    string      `json:"rule"`
}

// readings reads the clocks of every run but the baseline.
func readings(c *Comparison) []Reading {
	var out []Reading
	for i := 1; i < len(c.Runs); i++ {
		rd := Reading{Run: i, Label: c.Runs[i].Label, Rule: MovedRule}
		moved := map[string]*bool{}
		for _, clk := range clocks {
			m := clockMove(c.Sections, clk, i)
			moved[clk] = m.Moved
			rd.Clocks = append(rd.Clocks, m)
		}
		rd.Verdict = clockVerdict(moved["ttft"], moved["gap"])
		if isFalse(moved["ttft"]) && isFalse(moved["gap"]) && isTrue(moved["e2e"]) {
			rd.Verdict = "ttft and the p50/p95 gaps held while e2e moved: the time went into a few long gaps (see stalls) or more tokens, not into every gap or the wait for the first"
		}
		out = append(out, rd)
	}
	return out
}

// clockMove judges one clock of run i from its p50 and p95 rows.
func clockMove(secs []Section, clock string, i int) ClockMove {
	m := ClockMove{Clock: clock}
	for _, sec := range secs {
		if sec.Key != clock {
			continue
		}
		for _, r := range sec.Rows {
			if r.Label != "p50" && r.Label != "p95" {
				continue
			}
			d := r.Deltas[i]
			if d == nil || d.CI == nil || d.Abs == nil {
				continue
			}
			big := d.Pct == nil || math.Abs(*d.Pct) >= MovedPct
			mv := !d.WithinNoise && big
			if m.Moved == nil || mv && !*m.Moved {
				m.Moved = &mv
				m.Evidence = fmt.Sprintf("%s %s", r.Label, NoiseVerdict(r, d))
				if d.Pct != nil {
					m.Evidence += fmt.Sprintf(" (%s%%)", signed(*d.Pct))
				}
			}
		}
	}
	if m.Moved == nil {
		m.Evidence = fmt.Sprintf("no interval: fewer than %d streams with samples in a run", MinNoiseStreams)
	}
	return m
}

// clockVerdict is the transport/queue reading of TTFT and the gaps.
func clockVerdict(ttft, gap *bool) string {
	switch {
	case ttft == nil || gap == nil:
		return "cannot tell: too few streams with samples for an interval on ttft or the gaps"
	case *gap && !*ttft:
		return "transport: the gaps between frames moved while time to first token held, so frames are delayed on the way (network, a proxy buffering or pacing, this host's path), not queued before generation"
	case *ttft && !*gap:
		return "queue: time to first token moved while the gaps held, so the wait is before generation (server queueing, prefill, connection setup), not in the transport"
	case *ttft && *gap:
		return "both moved: time to first token and the gaps changed together, so the server is slower or busier throughout (or the workload differs); the transport alone does not explain it"
	}
	return "no clock moved beyond noise on ttft or the gaps"
}

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }
