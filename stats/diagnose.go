package stats

import (
	"fmt"
	"math"
	"strconv"
	"strings"

	"github.com/driplab/drip/internal/textfmt/numfmt"
)

// Diagnosis thresholds. Each hint names the figures that crossed them.
// They are hints about where the time went, not verdicts.
const (
	// QueueTTFTMS is the median TTFT at or above which TTFT is "high".
	QueueTTFTMS = 1000.0
	// TightGapRatio bounds "tight" gaps. Gaps are tight when gap p99 is
	// under the stall threshold and at most this many times gap p50 (p50
	// floored at 1 ms).
	TightGapRatio = 4.0
	// TightTTFTRatio bounds a "tight" TTFT. TTFT is tight when TTFT p90 is
	// at most this many times TTFT p50.
	TightTTFTRatio = 1.5
	// FatGapRatio bounds a "fat" gap tail. The tail is fat when gap p99
	// reaches the stall threshold or this many times gap p50 (floored at
	// 1 ms).
	FatGapRatio = 10.0
	// BurstSharePct is the share behind two flags. A run has "bursts" when
	// this share of content frames arrived coalesced with another. It has
	// "proxy buffering" when this share of the streams with content was
	// buffered by its reads.
	BurstSharePct = 20.0
	// LongE2EMS and LongTTFTShare define a "long answer". Its median e2e is
	// at or above LongE2EMS, its TTFT is under LongTTFTShare of that, and
	// its gaps are tight.
	LongE2EMS     = 10000.0
	LongTTFTShare = 0.2
	// SpreadRatio and SpreadMinStreams define a "wide spread across
	// identical runs". It holds when, for one prompt with at least
	// SpreadMinStreams completed streams, p90 / p50 of per-stream ITL or of
	// TTFT reaches SpreadRatio.
	SpreadRatio      = 2.0
	SpreadMinStreams = 5
	// FirstBurstTokens is how many tokens a first content read carries to
	// be a first burst.
	FirstBurstTokens = 8
	// CoalescedFlagPct is the share of content frames that must share a
	// read to flag coalescing.
	CoalescedFlagPct = 10.0
	// ColdStartRatio, ColdStartMinExtraMS and ColdStartMinRest define a
	// cold start. The first stream of a run without warmup started cold
	// when its TTFT is at least ColdStartRatio times the median TTFT of the
	// streams after it (ColdStartWindow at most, ColdStartMinRest at
	// least). It must also be at least ColdStartMinExtraMS more, a wait a
	// reader notices rather than a handshake.
	ColdStartRatio      = 5.0
	ColdStartMinExtraMS = 250.0
	ColdStartMinRest    = 3
	// gapFloorMS floors gap p50 in the gap ratios. Below a millisecond a
	// ratio of gaps says nothing.
	gapFloorMS = 1.0
	// minTTFTSamples is the fewest TTFTs that say anything about their
	// spread.
	minTTFTSamples = 3
)

// Diagnosis shapes.
const (
	ShapeClientLimited  = "client-limited"
	ShapeProxyBuffering = "proxy-buffering"
	ShapeProxyStutter   = "proxy-stutter"
	ShapeColdStart      = "cold-start"
	ShapeQueue          = "queue"
	ShapeTransport      = "transport"
	ShapeLongAnswer     = "long-answer"
	ShapeSharedCapacity = "shared-capacity"
	ShapeFirstBurst     = "first-frame-burst"
	ShapeCoalesced      = "coalesced-bursts"
	ShapeZeroContent    = "zero-content"
	ShapeNotAStream     = "not-a-stream"
	ShapeNetworkLoss    = "network-loss"
	ShapeServerStalls   = "server-stalls"
)

// timingShapes are the shapes read from drip's timings, which a starved
// client distorts.
var timingShapes = []string{ShapeProxyBuffering, ShapeProxyStutter, ShapeQueue, ShapeTransport, ShapeLongAnswer,
	ShapeSharedCapacity, ShapeFirstBurst, ShapeCoalesced}

// figures are the named numbers the rules read, taken once from a summary.
type figures struct {
	s                                   *Summary
	stall                               float64
	ttft50, ttft90, gap50, gap99, e2e50 float64
	haveGaps, haveTTFT, haveE2E         bool
	coalescedPct, readBufferedPct       float64
}

func newFigures(s *Summary) *figures {
	ttft, gap, e2e := TTFT.Of(s.Metrics), Gap.Of(s.Metrics), E2E.Of(s.Metrics)
	x := &figures{s: s, stall: s.Stalls.ThresholdMS}
	if x.stall <= 0 {
		x.stall = DefaultStall
	}
	x.ttft50, x.ttft90 = val(ttft.P50), val(ttft.P90)
	x.gap50, x.gap99 = val(gap.P50), val(gap.P99)
	x.e2e50 = val(e2e.P50)
	x.haveGaps, x.haveTTFT, x.haveE2E = gap.N >= 2, ttft.N > 0, e2e.N > 0
	x.coalescedPct = pct(s.Signals.CoalescedFrames, s.Signals.ContentFrames)
	x.readBufferedPct = pct(s.Signals.ReadBuffered, s.Signals.ContentStreams)
	return x
}

func (x *figures) gapsTight() bool {
	return x.haveGaps && x.gap99 < x.stall && x.gap99 <= TightGapRatio*max(x.gap50, gapFloorMS)
}

func (x *figures) gapsTightWhy() string {
	return fmt.Sprintf("gap p99 %s ≤ %s = %g × max(gap p50 %s, %s) and under the %s stall threshold",
		numfmt.MS(x.gap99), numfmt.MS(TightGapRatio*max(x.gap50, gapFloorMS)), TightGapRatio, numfmt.MS(x.gap50), numfmt.MS(gapFloorMS), numfmt.MS(x.stall))
}

func (x *figures) ttftTight() bool {
	return TTFT.Of(x.s.Metrics).N >= minTTFTSamples && x.ttft90 <= TightTTFTRatio*x.ttft50
}

func (x *figures) gapsFat() bool {
	return x.haveGaps && (x.gap99 >= x.stall || x.gap99 >= FatGapRatio*max(x.gap50, gapFloorMS))
}

// uneven is the transport rule's delivery condition. It asks for a fat gap
// tail, with silences well above the median gap. Frames sharing reads
// alone are not a hop's signature. At a sub-millisecond cadence several
// frames meet in one read by nature. The fixture's fast scenario, read
// directly, sends 64 tokens 0.5 ms apart and has 86–92 % of frames in
// shared reads with gap p99 under 10 ms.
func (x *figures) uneven() bool { return x.gapsFat() }

// heldFar reports whether the first token waited in transit FatGapRatio
// times the median gap or more. The wait is held_ms p50, from the server's
// own timings. The bar is the same one a gap's tail must clear to be fat.
func (x *figures) heldFar() bool {
	h := Held.Of(x.s.Metrics)
	return h.N > 0 && x.haveGaps && val(h.P50) >= FatGapRatio*max(x.gap50, gapFloorMS)
}

func (x *figures) schedLimited() bool { return x.s.Client != nil && x.s.Client.Limited }

// osLimited reports whether the OS says the client was starved
// (ClientOS.Limited) and its starving explains the bursts. Some streams'
// bursts it does not explain. Those are still buffered by their reads, or
// stutter with freezes at an interval no late reader keeps. They must be
// under proxy-buffering's share or fewer than the starved ones. Otherwise
// they are a proxy's or the server's, and proxy-buffering or proxy-stutter
// says so (a proxy on a busy machine).
func (x *figures) osLimited() bool {
	o := x.s.Client
	if o == nil || o.OS == nil || !o.OS.Limited {
		return false
	}
	sg := &x.s.Signals
	held := sg.ReadBuffered + sg.Stutter
	return pct(held, sg.ContentStreams) < BurstSharePct || held < o.OS.Starved
}

func (x *figures) scheduleLimited() bool { return x.s.OpenLoop != nil && x.s.OpenLoop.ClientLimited }

// rule is one row of the diagnosis table. It holds a shape, the condition
// over the figures that makes it fire, its evidence built from the same
// figures, and the shapes it rules out when it fires. Rules run in table
// order.
type rule struct {
	shape    string
	hint     func(*figures) string
	when     func(*figures) bool
	evidence func(*figures) []string
	excludes []string
}

func fixed(s string) func(*figures) string { return func(*figures) string { return s } }

// rules is the diagnosis table (docs/workloads.md, Diagnosis, states it).
var rules = []rule{
	{
		shape: ShapeClientLimited,
		hint: fixed("drip itself is the bottleneck: this machine ran its readers, writers or schedule late, " +
			"so the latency figures are largely the client's own delay, not the endpoint's (lower --concurrency or --rate, or give drip more cores)"),
		when: func(x *figures) bool { return x.scheduleLimited() || x.clientLate() },
		evidence: func(x *figures) []string {
			var ev []string
			if x.readerLate() {
				ev = append(ev, readerEvidence(x.s))
			}
			if x.scheduleLimited() {
				ol := x.s.OpenLoop
				ev = append(ev, fmt.Sprintf("schedule lag p99 %s > %s", numfmt.MS(val(ol.ScheduleLag.P99)), numfmt.MS(ol.LagBoundMS)))
			}
			return append(ev, x.threadEvidence()...)
		},
		excludes: timingShapes,
	},
	{
		shape: ShapeNetworkLoss,
		hint: fixed("segments were lost on the path: the silences are the network's retransmission waits, " +
			"each ended by the segments that queued behind the lost one, not a proxy's interval or the server's pause"),
		when: func(x *figures) bool { return x.lossLed() },
		evidence: func(x *figures) []string {
			w := x.s.Witness
			return []string{
				fmt.Sprintf("the client's kernel: %d of %d silences (%s) ended with a read that took out-of-order segments or followed the client's retransmits (≥ %g%%)",
					w.Silences.Loss, w.Silences.Count, pctText(pct(w.Silences.Loss, w.Silences.Count)), LossSilencePct),
				fmt.Sprintf("%d out-of-order segments received and %d retransmits over %s; %d of them lost-segment led (%s), their stutter or bursts rule lifted",
					w.OutOfOrder, w.Retransmits, Count(w.Streams, "witnessed stream"), w.LossLed, w.LossRule),
			}
		},
		excludes: []string{ShapeProxyStutter, ShapeTransport, ShapeCoalesced},
	},
	{
		shape: ShapeServerStalls,
		hint: fixed("the server paused mid-answer: each silence ended with frames that came in segments of their own, nothing merged before drip's socket " +
			"and no segment lost, so nothing on the way held the frames"),
		when:     func(x *figures) bool { return x.serverStalled() },
		evidence: func(x *figures) []string { return serverStallEvidence(x.s.Witness) },
	},
	{
		shape: ShapeProxyBuffering,
		hint: func(x *figures) string {
			h := "content arrives in bursts separated by silence: a buffering proxy (or compression) between drip and the server, or a server that flushes in batches; " +
				"ITL and tps_user are withheld and throughput is end-to-end"
			if x.s.Stalls.Count > 0 {
				// Only when there are stalls, since the hint must not
				// speak of stalls a report counts as 0.
				h += "; the stalls are real waits, caused by the buffering, not by generation"
			}
			if x.s.Signals.Compressed > 0 {
				h += "; the responses were compressed"
			}
			if x.mergedBeforeSocket() {
				h += "; the client's kernel received the frames merged before its socket, so " + hopsSettles
			}
			return h
		},
		when: func(x *figures) bool {
			return x.s.Signals.ContentStreams > 0 && x.readBufferedPct >= BurstSharePct
		},
		evidence: func(x *figures) []string {
			sg := &x.s.Signals
			ev := []string{
				fmt.Sprintf("%d of %d streams with content (%s) buffered by their reads (≥ %g%% of content frames in reads of ≥ %d, or tokens under %s apart; threshold %g%% of streams)",
					sg.ReadBuffered, sg.ContentStreams, pctText(x.readBufferedPct), BurstSharePctBuffered, BurstFrames, numfmt.MS(InstantMSPerToken), BurstSharePct),
				fmt.Sprintf("largest burst %d content frames in one read of %s", sg.LargestBurstFrames, bytesText(sg.LargestBurstBytes)),
			}
			if sg.LongestSilenceMS > 0 {
				ev = append(ev, "longest silence between content reads "+numfmt.MS(sg.LongestSilenceMS))
			} else {
				ev = append(ev, "each stream's content came in one read")
			}
			if h := Held.Of(x.s.Metrics); h.N > 0 {
				ev = append(ev, fmt.Sprintf("the server had its first token held_ms p50 %s before drip read it (server-reported, n=%d)", numfmt.MS(val(h.P50)), h.N))
			}
			if sg.Compressed > 0 {
				ev = append(ev, Count(sg.Compressed, "stream")+" compressed")
			}
			return append(ev, mergeEvidence(x.s.Witness)...)
		},
		excludes: []string{ShapeQueue, ShapeTransport, ShapeLongAnswer, ShapeSharedCapacity, ShapeFirstBurst, ShapeCoalesced},
	},
	{
		shape: ShapeProxyStutter,
		hint: func(x *figures) string {
			f := &x.s.Freezes
			h := fmt.Sprintf("content arrives in bursts every %s, the reader seeing the text freeze between them: "+
				"a proxy forwarding on an interval (haproxy's defaults do, merging small writes; option http-no-delay turns it off), not one holding the answer; ",
				periodText(f))
			held := "held"
			if x.mergedBeforeSocket() {
				h, held = batchHint(periodText(f)), x.firstWord()
			}
			switch passed := f.Streams - f.FirstHeld; {
			case f.FirstHeld == 0:
				return h + "ITL is end to end, the first content having passed at once"
			case passed == 0:
				return h + "ITL is withheld, the first content having been " + held
			default:
				return h + fmt.Sprintf("ITL is end to end for the %s whose first content passed at once, withheld for the %d whose first content was %s",
					Count(passed, "stream"), f.FirstHeld, held)
			}
		},
		when: func(x *figures) bool {
			return x.s.Signals.ContentStreams > 0 && pct(x.s.Signals.Stutter, x.s.Signals.ContentStreams) >= BurstSharePct
		},
		evidence: func(x *figures) []string {
			sg, f := &x.s.Signals, &x.s.Freezes
			return append([]string{
				fmt.Sprintf("%d of %d streams with content (%s) stutter (≥ %d freezes — silences between content reads ≥ max(%s, %g × the stream's mean spacing) — within %g%% of their median, most content frames sharing a read, period ≤ %s; threshold %g%% of streams)",
					sg.Stutter, sg.ContentStreams, pctText(pct(sg.Stutter, sg.ContentStreams)), StutterMinFreezes, numfmt.MS(FreezeMinMS), FreezePaceRatio, 100*StutterTolerance, numfmt.MS(StutterMaxPeriodMS), BurstSharePct),
				fmt.Sprintf("period %s; %d freezes, longest %s", periodText(f), f.Count, numfmt.MS(val(f.LongestMS))),
				fmt.Sprintf("first content %s (first read carried > 1 content frame) in %d of %d", x.firstWord(), f.FirstHeld, f.Streams),
			}, mergeEvidence(x.s.Witness)...)
		},
		excludes: []string{ShapeTransport, ShapeFirstBurst, ShapeCoalesced},
	},
	{
		shape: ShapeQueue,
		hint:  fixed("a queue in front of the model: requests wait, then generate normally"),
		when:  func(x *figures) bool { return x.haveTTFT && x.ttft50 >= QueueTTFTMS && x.gapsTight() },
		evidence: func(x *figures) []string {
			return []string{fmt.Sprintf("ttft p50 %s ≥ %s", numfmt.MS(x.ttft50), numfmt.MS(QueueTTFTMS)), x.gapsTightWhy()}
		},
		excludes: []string{ShapeTransport}, // it says the model answers on time
	},
	{
		shape: ShapeTransport,
		hint: func(x *figures) string {
			if x.hopUneven() {
				return "the model answers on time but delivery is uneven: suspect a proxy or compression on the way"
			}
			if x.s.Signals.Compressed == 0 {
				return "the model answers on time but its first token waited on the way: suspect a proxy holding it"
			}
			const compressed = "the responses were compressed on the way (by a proxy or the server): compression can gather frames and delay them, "
			if !x.haveGaps {
				return compressed + "but there were too few gaps here to judge delivery; if stalls show up, suspect it first"
			}
			return compressed + "though delivery here was even; if stalls show up, suspect it first"
		},
		when: func(x *figures) bool {
			return x.ttftTight() && (x.hopUneven() || x.heldFar() || x.s.Signals.Compressed > 0)
		},
		evidence: func(x *figures) []string {
			ev := []string{fmt.Sprintf("ttft p90 %s ≤ %s = %g × p50 %s", numfmt.MS(x.ttft90), numfmt.MS(TightTTFTRatio*x.ttft50), TightTTFTRatio, numfmt.MS(x.ttft50))}
			switch {
			case x.haveGaps && x.gap99 >= x.stall:
				ev = append(ev, fmt.Sprintf("gap p99 %s ≥ the %s stall threshold", numfmt.MS(x.gap99), numfmt.MS(x.stall)))
			case x.gapsFat():
				ev = append(ev, fmt.Sprintf("gap p99 %s ≥ %s = %g × max(gap p50 %s, %s)",
					numfmt.MS(x.gap99), numfmt.MS(FatGapRatio*max(x.gap50, gapFloorMS)), FatGapRatio, numfmt.MS(x.gap50), numfmt.MS(gapFloorMS)))
			}
			if x.hopUneven() && x.coalescedPct >= BurstSharePct {
				ev = append(ev, fmt.Sprintf("%s of content frames coalesced (≥ %g%%)", pctText(x.coalescedPct), BurstSharePct))
			}
			if x.heldFar() {
				h := Held.Of(x.s.Metrics)
				ev = append(ev, fmt.Sprintf("the first token was held in transit held_ms p50 %s ≥ %s = %g × max(gap p50 %s, %s) (server-reported, n=%d)",
					numfmt.MS(val(h.P50)), numfmt.MS(FatGapRatio*max(x.gap50, gapFloorMS)), FatGapRatio, numfmt.MS(x.gap50), numfmt.MS(gapFloorMS), h.N))
			}
			if n := x.s.Signals.Compressed; n > 0 {
				ev = append(ev, Count(n, "stream")+" compressed")
			}
			if !x.hopUneven() && x.haveGaps {
				ev = append(ev, fmt.Sprintf("delivery even: gap p99 %s < the %s stall threshold and < %s = %g × max(gap p50 %s, %s)",
					numfmt.MS(x.gap99), numfmt.MS(x.stall), numfmt.MS(FatGapRatio*max(x.gap50, gapFloorMS)), FatGapRatio, numfmt.MS(x.gap50), numfmt.MS(gapFloorMS)))
			}
			if !x.haveGaps {
				ev = append(ev, fmt.Sprintf("gap n=%d: too few (< 2) to judge delivery", Gap.Of(x.s.Metrics).N))
			}
			return ev
		},
	},
	{
		shape: ShapeLongAnswer,
		hint:  fixed("a long answer: everything flows but there is a lot of it; cap max tokens (--max-tokens)"),
		when: func(x *figures) bool {
			return x.haveE2E && x.e2e50 >= LongE2EMS && x.gapsTight() && x.ttft50 < LongTTFTShare*x.e2e50
		},
		evidence: func(x *figures) []string {
			return []string{
				fmt.Sprintf("e2e p50 %s ≥ %s", numfmt.MS(x.e2e50), numfmt.MS(LongE2EMS)),
				fmt.Sprintf("ttft p50 %s < %s = %g × e2e p50", numfmt.MS(x.ttft50), numfmt.MS(LongTTFTShare*x.e2e50), LongTTFTShare),
				x.gapsTightWhy(),
				"output tokens p50 " + numText(val(OutputTokens.Of(x.s.Metrics).P50)),
			}
		},
	},
	{
		shape: ShapeColdStart,
		hint: func(x *figures) string {
			fs := x.s.FirstStream
			return fmt.Sprintf("the first stream started cold: first TTFT %s against %s for the rest; use --warmup 1",
				numfmt.MS(fs.TTFTMS), numfmt.MS(fs.RestTTFTP50MS))
		},
		when: func(x *figures) bool {
			fs := x.s.FirstStream
			return x.s.Workload.Warmup == 0 && fs != nil && fs.RestN >= ColdStartMinRest &&
				coldOutlier(fs, fs.TTFTMS) && !coldOutlier(fs, fs.RestTTFTMaxMS)
		},
		evidence: func(x *figures) []string {
			fs := x.s.FirstStream
			return []string{fmt.Sprintf("no warmup; the first stream's ttft %s ≥ %g × %s, the median ttft of the %d streams after it, and %s more (≥ %s); none after it as slow (slowest %s)",
				numfmt.MS(fs.TTFTMS), ColdStartRatio, numfmt.MS(fs.RestTTFTP50MS), fs.RestN, numfmt.MS(fs.TTFTMS-fs.RestTTFTP50MS), numfmt.MS(ColdStartMinExtraMS), numfmt.MS(fs.RestTTFTMaxMS))}
		},
		excludes: []string{ShapeSharedCapacity}, // the spread is the cold stream's
	},
	{
		shape:    ShapeSharedCapacity,
		hint:     fixed("identical requests vary widely: the capacity behind the endpoint is shared or contended"),
		when:     func(x *figures) bool { return len(spreadEvidence(x.s)) > 0 },
		evidence: func(x *figures) []string { return spreadEvidence(x.s) },
	},
	{
		shape: ShapeFirstBurst,
		hint:  fixed("the first content arrived as one large burst: TTFT may hide buffered generation"),
		when:  func(x *figures) bool { return x.s.Signals.FirstBursts > 0 },
		evidence: func(x *figures) []string {
			sg := &x.s.Signals
			whose := Count(sg.FirstBursts, "stream") + "'"
			if sg.FirstBursts == 1 {
				whose = "1 stream's"
			}
			return []string{fmt.Sprintf("%s first content read carried ≥ %d tokens (most %d; from usage where the stream reported it)",
				whose, FirstBurstTokens, sg.FirstBurstMax)}
		},
	},
	{
		shape: ShapeCoalesced,
		hint:  fixed("content frames arrive in bursts that share a read: gaps of 0 are delivery, not generation"),
		when: func(x *figures) bool {
			return x.s.Signals.ContentFrames > 0 && x.coalescedPct >= CoalescedFlagPct
		},
		evidence: func(x *figures) []string {
			sg := &x.s.Signals
			return []string{fmt.Sprintf("%d of %d content frames (%s) shared a read (threshold %g%%)",
				sg.CoalescedFrames, sg.ContentFrames, pctText(x.coalescedPct), CoalescedFlagPct)}
		},
	},
	{
		shape: ShapeZeroContent,
		hint:  fixed("HTTP success with no content: check the request (model, max tokens, content filter)"),
		when:  func(x *figures) bool { return x.s.Signals.ZeroContent > 0 },
		evidence: func(x *figures) []string {
			return []string{Count(x.s.Signals.ZeroContent, "stream") + " answered 2xx and ended without content text"}
		},
	},
	{
		shape: ShapeNotAStream,
		hint: func(x *figures) string {
			return fmt.Sprintf("no %s frame in the body: a whole (non-streaming) answer, a page (a login, an error), or another format; "+
				"ask for a stream (e.g. \"stream\": true in --body) or name the format with --format", x.s.Workload.Format)
		},
		when: func(x *figures) bool { return x.s.Signals.NoFrames > 0 || x.s.Signals.NotStream > 0 },
		evidence: func(x *figures) []string {
			sg := &x.s.Signals
			var ev []string
			if sg.NotStream > 0 {
				ev = append(ev, fmt.Sprintf("%s answered 2xx with no stream (%s)", Count(sg.NotStream, "stream"), sg.NotStreamWhy))
			}
			if sg.NoFrames > 0 {
				ev = append(ev, fmt.Sprintf("%s answered 2xx with a body from which no %s frame was decoded", Count(sg.NoFrames, "stream"), x.s.Workload.Format))
			}
			return ev
		},
	},
}

// Diagnose reads a summary's figures for the known shapes of slow streams
// and returns each rule of the table that fires, in table order, unless
// a rule that fired before it excludes it. It is a pure function of the
// summary.
func Diagnose(s *Summary) []Diagnosis {
	x := newFigures(s)
	out := []Diagnosis{}
	excluded := map[string]bool{}
	for i := range rules {
		r := &rules[i]
		if excluded[r.shape] || !r.when(x) {
			continue
		}
		out = append(out, Diagnosis{Shape: r.shape, Hint: r.hint(x), Evidence: strings.Join(r.evidence(x), "; ")})
		for _, e := range r.excludes {
			excluded[e] = true
		}
	}
	return out
}

// coldOutlier reports whether ttft is ColdStartRatio times the median of
// the streams after the first and ColdStartMinExtraMS more. The first
// stream started cold only when it alone is such an outlier. A later
// stream as slow means the wait recurs (a pause every few requests), and
// is no cold start.
func coldOutlier(fs *FirstStream, ttft float64) bool {
	return ttft >= ColdStartRatio*fs.RestTTFTP50MS && ttft-fs.RestTTFTP50MS >= ColdStartMinExtraMS
}

// spreadEvidence is the shared-capacity rule's evidence. It names the
// first prompt whose identical runs spread widely.
func spreadEvidence(s *Summary) []string {
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
				ev = append(ev, fmt.Sprintf("prompt %s: %s p90 %s is %s × p50 %s (≥ %g, n=%d)",
					p.ID, d.name, numfmt.MS(val(d.d.P90)), numText(val(d.d.P90)/val(d.d.P50)), numfmt.MS(val(d.d.P50)), SpreadRatio, d.d.N))
			}
		}
		if len(ev) > 0 {
			return ev
		}
	}
	return nil
}

// periodText is the stutter streams' period as one figure or their range.
func periodText(f *Freezes) string {
	return numfmt.MSRange(val(f.PeriodMinMS), val(f.PeriodMaxMS))
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

// numText prints a plain number for evidence text. It keeps up to three
// significant digits and never uses an exponent.
func numText(v float64) string {
	switch a := math.Abs(v); {
	case a == 0:
		return "0"
	case a >= 100:
		return strconv.FormatFloat(v, 'f', 0, 64)
	case a >= 10:
		return strconv.FormatFloat(math.Round(v*10)/10, 'f', -1, 64)
	case a >= 1:
		return strconv.FormatFloat(math.Round(v*100)/100, 'f', -1, 64)
	}
	d := 1 - int(math.Floor(math.Log10(math.Abs(v)))) // two significant digits
	return strings.TrimRight(strings.TrimRight(strconv.FormatFloat(v, 'f', d, 64), "0"), ".")
}

func pctText(v float64) string { return numText(v) + "%" }

func bytesText(n int) string {
	if n >= 1024 {
		return numText(float64(n)/1024) + " KiB"
	}
	return strconv.Itoa(n) + " B"
}
