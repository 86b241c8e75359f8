package compare

import (
	"fmt"
	"math"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// MovedPct is the smallest change, as a share of the baseline's figure,
// that counts as a clock moving, on top of the interval excluding 0. On a
// busy machine a 1% shift can be beyond noise and still mean nothing.
const MovedPct = 5.0

// MovedRule states when a clock moved.
var MovedRule = fmt.Sprintf("a clock moved when the 95%% bootstrap interval of its p50 or p95 difference excludes 0 and the difference is at least %g%% of the baseline's figure", MovedPct)

// clocks are the figures the reading is about, in report order.
var clocks = []string{stats.TTFT.Key, stats.Headers.Key, stats.TTFTServer.Key, stats.Gap.Key, stats.ITL.Key, stats.E2E.Key, stats.Tail.Key}

// ClockMove is whether one clock of a run moved against the baseline.
type ClockMove struct {
	Clock string `json:"clock"`
	// Moved is nil when neither p50 nor p95 has an interval (too few
	// streams), so the data cannot tell.
	Moved    *bool  `json:"moved"`
	Evidence string `json:"evidence"`
}

// Reading is what the clocks of one run say against the baseline. It says
// which moved, and whether that points at the transport or at a queue before
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
		rd.Verdict = clockVerdict(moved[stats.TTFT.Key], moved[stats.Gap.Key])
		if isFalse(moved[stats.TTFT.Key]) && isFalse(moved[stats.Gap.Key]) && isTrue(moved[stats.E2E.Key]) {
			rd.Verdict = "ttft and the p50/p95 gaps held while e2e moved: the time went into a few long gaps (see stalls) or more tokens, not into every gap or the wait for the first"
		}
		if v, ok := pathVerdict(c.Sections, i, moved); ok {
			rd.Verdict, rd.Rule = v, MovedRule+"; "+PathRule
		}
		if v, ok := hopVerdict(&c.Runs[0].Summary, &c.Runs[i].Summary); ok {
			rd.Verdict, rd.Rule = v, HopRule
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
			mv := deltaMoved(d)
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
		m.Evidence = noIntervalWords
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

// The network-path reading: headers and TTFT moved together by about the
// same amount while the server's part of TTFT held, so the wait grew on
// the way, not in the server.
const (
	// PathSamePct and PathSameMS bound "about the same". The p50
	// differences of TTFT and headers are about the same within max(PathSameMS, PathSamePct% of the
	// headers' difference).
	PathSamePct = 25.0
	PathSameMS  = 2.0
	// ServerHeldShare says the server's part (ttft_server) held when it did
	// not move beyond noise, or its p50 moved by at most this share of the
	// headers' p50 move (a path's jitter reorders what arrives after the
	// headers, so the server's part wanders with it).
	ServerHeldShare = 0.25
	// TailMovedPct says when the tail moved. With no interval on the gap
	// p99 (the bootstrap covers p50 and p95), the tail moved when its p99
	// rose by at least this share of the baseline's. A path holding 1% of
	// chunks moves no p95.
	TailMovedPct = 50.0
)

// PathRule states the network-path reading.
var PathRule = fmt.Sprintf("network-path when the p50s of ttft and headers both moved beyond noise (however little: a path's few ms are real on a long ttft), their differences within max(%g ms, %g%% of the headers'), and ttft_server held (did not move, or its p50 moved by at most %g × the headers'); the gap tail moving (p95 by MovedRule, or p99 up by ≥ %g%%) while the gap p50 held is the path's jitter or loss",
	PathSameMS, PathSamePct, ServerHeldShare, TailMovedPct)

// pathVerdict is the network-path reading of run i, when its rule holds.
// The p50s need only move beyond noise, not by MovedPct: a path 5 ms
// longer is 3% of a 180 ms TTFT. Streams whose headers came with their
// first content have no ttft_server, so they never read as the path.
func pathVerdict(secs []Section, i int, moved map[string]*bool) (string, bool) {
	ttft, hdr, srv := rowDelta(secs, stats.TTFT.Key, "p50", i), rowDelta(secs, stats.Headers.Key, "p50", i), rowDelta(secs, stats.TTFTServer.Key, "p50", i)
	if !beyondNoise(ttft) || !beyondNoise(hdr) || srv == nil || srv.CI == nil {
		return "", false
	}
	dt, dh, ds := *ttft.Abs, *hdr.Abs, *srv.Abs
	same := math.Abs(dt-dh) <= max(PathSameMS, PathSamePct/100*math.Abs(dh))
	held := !isTrue(moved[stats.TTFTServer.Key]) || math.Abs(ds) <= ServerHeldShare*math.Abs(dh)
	if !same || !held {
		return "", false
	}
	grew := "grew"
	if dh < 0 {
		grew = "shrank"
	}
	v := fmt.Sprintf("network-path: headers p50 moved %s and ttft p50 %s (the same within %s) while the server's part after the headers held (p50 %s): "+
		"the round trip on the path %s by about %s, not the server's queue or generation", textfmt.SignedMS(dh), textfmt.SignedMS(dt), textfmt.MS(max(PathSameMS, PathSamePct/100*math.Abs(dh))), textfmt.SignedMS(ds), grew, textfmt.MS(math.Abs(dh)))
	return v + gapOnPath(secs, i), true
}

// HopRule states the hop reading.
const HopRule = "a hop changed when the delivery class most streams with content had (clean, stutter or buffered, from their reads) differs between the baseline and the run"

// hopVerdict is the hop reading. Most streams arrived in one delivery
// class in the baseline and in another in the run. How the content
// arrives is the path's doing (a proxy forwarding on an interval, or
// holding the answer), so the clocks that moved with it say a hop
// changed, not that the server got slower.
func hopVerdict(base, run *stats.Summary) (string, bool) {
	bc, bn, bof := deliveryClass(base)
	rc, rn, rof := deliveryClass(run)
	if bc == "" || rc == "" || bc == rc {
		return "", false
	}
	return fmt.Sprintf("a hop changed: delivery went from %s (%d of %d streams with content) to %s (%d of %d), "+
		"so something between drip and the server forwards the stream differently (a proxy added, removed or reconfigured), "+
		"not the server; the clocks moved with it", bc, bn, bof, rc, rn, rof), true
}

// deliveryClass is the delivery class most of a run's streams with
// content had, how many had it and of how many. It is "" without such
// streams.
func deliveryClass(s *stats.Summary) (string, int, int) {
	n := s.Signals.ContentStreams
	if n == 0 {
		return "", 0, 0
	}
	stutter, buffered := s.Signals.Stutter, s.Streams.Buffered
	clean := n - stutter - buffered
	switch {
	case clean >= stutter && clean >= buffered:
		return record.DeliveryClean, clean, n
	case stutter >= buffered:
		return record.DeliveryStutter, stutter, n
	}
	return record.DeliveryBuffered, buffered, n
}

// gapOnPath says what the gaps did beside a network-path reading.
func gapOnPath(secs []Section, i int) string {
	p50, p95, p99 := rowDelta(secs, stats.Gap.Key, "p50", i), rowDelta(secs, stats.Gap.Key, "p95", i), rowDelta(secs, stats.Gap.Key, "p99", i)
	const tail = " while the gap p50 held: the path's jitter or loss (chunks held, then released together)"
	switch {
	case p50 == nil || p50.CI == nil:
		return ""
	case deltaMoved(p50):
		return fmt.Sprintf("; the gap p50 moved too (%s): delivery changed throughout, not only the path's delay", textfmt.SignedMS(*p50.Abs))
	case p95 != nil && p95.CI != nil && deltaMoved(p95):
		return fmt.Sprintf("; the gap p95 moved %s", textfmt.SignedMS(*p95.Abs)) + tail
	case p99 != nil && p99.Pct != nil && *p99.Pct >= TailMovedPct:
		return fmt.Sprintf("; the gap p99 rose %s (%s%%)", textfmt.SignedMS(*p99.Abs), signed(*p99.Pct)) + tail
	}
	return "; the gaps held"
}

// rowDelta is run i's difference on one row (p50, p95, p99) of a clock's
// section, when both runs have the figure.
func rowDelta(secs []Section, clock, label string, i int) *Delta {
	for _, sec := range secs {
		if sec.Key != clock {
			continue
		}
		for _, r := range sec.Rows {
			if r.Label == label && r.Deltas[i] != nil && r.Deltas[i].Abs != nil {
				return r.Deltas[i]
			}
		}
	}
	return nil
}

// deltaMoved is MovedRule over one difference.
func deltaMoved(d *Delta) bool {
	return !d.WithinNoise && (d.Pct == nil || math.Abs(*d.Pct) >= MovedPct)
}

// beyondNoise says a difference's interval excludes 0, whatever its size.
func beyondNoise(d *Delta) bool { return d != nil && d.CI != nil && !d.WithinNoise && *d.Abs != 0 }

func isTrue(b *bool) bool  { return b != nil && *b }
func isFalse(b *bool) bool { return b != nil && !*b }
