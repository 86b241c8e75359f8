package probe

import (
	"fmt"
	"strings"
)

// Diagnosis thresholds. Each hint names the figures that crossed them; they
// are hints about where the time went, not verdicts.
const (
	// QueueTTFTMS: a median TTFT at or above this is "high".
	QueueTTFTMS = 1000.0
	// TightGapRatio: gaps are "tight" when gap p99 is under the stall
	// threshold and at most this many times gap p50 (p50 floored at 1 ms).
	TightGapRatio = 4.0
	// TightTTFTRatio: TTFT is "tight" when TTFT p90 is at most this many
	// times TTFT p50.
	TightTTFTRatio = 1.5
	// FatGapRatio: the gap tail is "fat" when gap p99 reaches the stall
	// threshold or this many times gap p50 (floored at 1 ms).
	FatGapRatio = 10.0
	// BurstSharePct: "bursts" when this share of content frames arrived
	// coalesced with another, or this share of streams was buffered.
	BurstSharePct = 20.0
	// LongE2EMS and LongTTFTShare: a "long answer" has median e2e at or
	// above LongE2EMS with TTFT under LongTTFTShare of it and tight gaps.
	LongE2EMS     = 10000.0
	LongTTFTShare = 0.2
	// SpreadRatio and SpreadMinStreams: "wide spread across identical runs"
	// when, for one prompt with at least SpreadMinStreams completed streams,
	// p90 / p50 of per-stream ITL or of TTFT reaches SpreadRatio.
	SpreadRatio      = 2.0
	SpreadMinStreams = 5
	// FirstBurstTokens: a first content read carrying this many tokens.
	FirstBurstTokens = 8
	// CoalescedFlagPct: flag coalescing when this share of content frames
	// shared a read.
	CoalescedFlagPct = 10.0
	// minTTFTSamples: fewer TTFTs than this say nothing about their spread.
	minTTFTSamples = 3
)

// Diagnosis shapes.
const (
	ShapeQueue          = "queue"
	ShapeTransport      = "transport"
	ShapeLongAnswer     = "long-answer"
	ShapeSharedCapacity = "shared-capacity"
	ShapeFirstBurst     = "first-frame-burst"
	ShapeCoalesced      = "coalesced-bursts"
	ShapeZeroContent    = "zero-content"
	ShapeClientLimited  = "client-limited"
)

// Diagnose reads a summary's figures for the known shapes of slow streams
// and returns each that matches with its evidence and thresholds. It is a
// pure function of the summary.
func Diagnose(s *Summary) []Diagnosis {
	out := []Diagnosis{}
	add := func(shape, hint string, evidence ...string) {
		out = append(out, Diagnosis{Shape: shape, Hint: hint, Evidence: strings.Join(evidence, "; ")})
	}
	m := &s.Metrics
	stall := s.Stalls.ThresholdMS
	if stall <= 0 {
		stall = DefaultStall
	}
	ttft50, ttft90 := val(m.TTFT.P50), val(m.TTFT.P90)
	gap50, gap99 := val(m.Gap.P50), val(m.Gap.P99)
	haveGaps := m.Gap.N >= 2
	gapsTight := haveGaps && gap99 < stall && gap99 <= TightGapRatio*max(gap50, 1)
	gapsTightWhy := fmt.Sprintf("gap p99 %s ms ≤ %g × gap p50 %s ms and under the %s ms stall threshold",
		f(gap99), TightGapRatio, f(gap50), f(stall))
	ttftTight := m.TTFT.N >= minTTFTSamples && ttft90 <= TightTTFTRatio*ttft50

	if m.TTFT.N > 0 && ttft50 >= QueueTTFTMS && gapsTight {
		add(ShapeQueue, "a queue in front of the model: requests wait, then generate normally",
			fmt.Sprintf("ttft p50 %s ms ≥ %s ms", f(ttft50), f(QueueTTFTMS)), gapsTightWhy)
	}

	fat := haveGaps && (gap99 >= stall || gap99 >= FatGapRatio*max(gap50, 1))
	coalescedPct := pct(s.Signals.CoalescedFrames, s.Signals.ContentFrames)
	bufferedPct := pct(s.Streams.Buffered, s.Streams.Admitted)
	bursts := coalescedPct >= BurstSharePct || bufferedPct >= BurstSharePct
	if ttftTight && (fat || bursts) {
		ev := []string{fmt.Sprintf("ttft p90 %s ms ≤ %g × p50 %s ms", f(ttft90), TightTTFTRatio, f(ttft50))}
		if fat {
			ev = append(ev, fmt.Sprintf("gap p99 %s ms ≥ the %s ms stall threshold or %g × gap p50 %s ms", f(gap99), f(stall), FatGapRatio, f(gap50)))
		}
		if bursts {
			ev = append(ev, fmt.Sprintf("%s%% of content frames coalesced, %s%% of streams buffered (threshold %g%%)", f(coalescedPct), f(bufferedPct), BurstSharePct))
		}
		if s.Signals.Compressed > 0 {
			ev = append(ev, fmt.Sprintf("%d streams compressed", s.Signals.Compressed))
		}
		add(ShapeTransport, "the model answers on time but delivery is uneven: suspect a buffering proxy or compression", ev...)
	}

	e2e50 := val(m.E2E.P50)
	if m.E2E.N > 0 && e2e50 >= LongE2EMS && gapsTight && ttft50 < LongTTFTShare*e2e50 {
		add(ShapeLongAnswer, "a long answer: everything flows but there is a lot of it; cap max tokens (--max-tokens)",
			fmt.Sprintf("e2e p50 %s ms ≥ %s ms", f(e2e50), f(LongE2EMS)),
			fmt.Sprintf("ttft p50 %s ms < %g × e2e p50", f(ttft50), LongTTFTShare), gapsTightWhy,
			fmt.Sprintf("output tokens p50 %s", f(val(m.OutputTokens.P50))))
	}

	for _, p := range s.PerPrompt {
		if p.Completed < SpreadMinStreams {
			continue
		}
		var ev []string
		for _, d := range []struct {
			name string
			d    Dist
		}{{"per-stream itl", p.ITL}, {"ttft", p.TTFT}} {
			if d.d.N >= SpreadMinStreams && val(d.d.P50) > 0 && val(d.d.P90)/val(d.d.P50) >= SpreadRatio {
				ev = append(ev, fmt.Sprintf("prompt %s: %s p90 %s ms is %s × p50 %s ms (≥ %g, n=%d)",
					p.ID, d.name, f(val(d.d.P90)), f(val(d.d.P90)/val(d.d.P50)), f(val(d.d.P50)), SpreadRatio, d.d.N))
			}
		}
		if len(ev) > 0 {
			add(ShapeSharedCapacity, "identical requests vary widely: the capacity behind the endpoint is shared or contended", ev...)
			break
		}
	}

	sg := &s.Signals
	if sg.FirstBursts > 0 {
		add(ShapeFirstBurst, "the first content arrived as one large burst: TTFT may hide buffered generation",
			fmt.Sprintf("%d streams' first content read carried ≥ %d tokens (most %d)", sg.FirstBursts, FirstBurstTokens, sg.FirstBurstMax))
	}
	if sg.ContentFrames > 0 && coalescedPct >= CoalescedFlagPct {
		add(ShapeCoalesced, "content frames arrive in bursts that share a read: gaps of 0 are delivery, not generation",
			fmt.Sprintf("%d of %d content frames (%s%%) shared a read (threshold %g%%)", sg.CoalescedFrames, sg.ContentFrames, f(coalescedPct), CoalescedFlagPct))
	}
	if sg.ZeroContent > 0 {
		add(ShapeZeroContent, "HTTP success with no content: check the request (model, max tokens, content filter)",
			fmt.Sprintf("%d streams answered 2xx and ended without content text", sg.ZeroContent))
	}
	if ol := s.OpenLoop; ol != nil && ol.ClientLimited {
		add(ShapeClientLimited, "drip itself fell behind its schedule: the load was shaped by this machine, not the rate asked for",
			fmt.Sprintf("schedule lag p99 %s ms > %s ms", f(val(ol.ScheduleLag.P99)), f(ol.LagBoundMS)))
	}
	return out
}

func val(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}

func pct(n, of int) float64 {
	if of == 0 {
		return 0
	}
	return 100 * float64(n) / float64(of)
}

// f prints a figure for evidence text.
func f(v float64) string { return fmt.Sprintf("%.4g", v) }
