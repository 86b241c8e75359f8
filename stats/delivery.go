package stats

import (
	"math"
	"slices"

	"github.com/driplab/drip/record"
)

// The delivery rule decides "buffered" from how the content arrived, not
// only from how long it took. A buffering proxy (nginx's default
// proxy_buffering with an HTTP/1.0 upstream) hands the client its buffer
// when the buffer fills. Through nginx, a 128-token Ollama stream came in
// 4–8 reads of about 4 KB, 1.2 s apart, each read carrying 16–32 frames. A
// fast server that flushes every token arrives in a read per frame even at
// 0.5 ms a token (64 tokens in 62–64 reads over 30 ms). Frames per read
// tell the two apart, and time alone does not. docs/delivery.md has the rule
// and the figures behind it.
const (
	// BurstFrames is the fewest content frames a read carries to be a
	// burst. A server that flushes each token gives 1, now and then 2 when
	// two flushes meet in the client's socket buffer.
	BurstFrames = 4
	// BurstSharePctBuffered is the share of a stream's content frames that
	// must come in bursts for the stream to be buffered.
	BurstSharePctBuffered = 50.0
	// InstantMSPerToken is the time per token under which content is
	// delivery, not generation, whatever the reads. It is 20,000 tokens a
	// second for one user, and no model streams one user that fast.
	InstantMSPerToken = 0.05
	// instantMinTokens is the fewest tokens the instant rule judges.
	instantMinTokens = 10
)

// The stutter rule finds content forwarded in bursts at a regular interval
// without the answer being held. haproxy 2.6 with its defaults (no option
// http-no-delay) forwarded the fixture's 25 ms-a-word stream in bursts of
// 4–9 frames every 212–232 ms, the first frame at once. The reader sees a
// freeze every ~220 ms, under the 250 ms stall threshold, while the answer
// flows. docs/delivery.md has the figures.
const (
	// FreezeMinMS and FreezePaceRatio define a freeze. A silence between
	// two content reads is a freeze when it is at least FreezeMinMS and
	// FreezePaceRatio times the stream's mean spacing (its content span
	// over its gaps).
	FreezeMinMS     = 50.0
	FreezePaceRatio = 4.0
	// StutterMinFreezes is the fewest freezes within StutterTolerance of
	// their median that a stutter needs. They must also be at least half
	// of all its freezes.
	StutterMinFreezes = 3
	StutterTolerance  = 0.25
	// StutterMaxPeriodMS is the longest interval a stutter has. Bursts
	// further apart are a buffer handed over (nginx's 4 KiB every 1.2 s
	// from a real model), not an interval. A reader who waits a second a
	// burst reads a held answer.
	StutterMaxPeriodMS = 1000.0
)

// Delivery rules name the rule that set a stream's class.
const (
	DeliveryFewFrames = "few-frames" // buffered, as fewer than bufferedMinFrames content frames carried many tokens at once
	DeliveryBursts    = "bursts"     // buffered, as most content frames came in reads of BurstFrames or more
	DeliveryInstant   = "instant"    // buffered, as tokens came faster than InstantMSPerToken apart
	DeliveryInterval  = "interval"   // stutter, as regular freezes came between bursts that share reads
)

// contentRead is one read that carried content. It holds when the read
// came and how many content frames it carried.
type contentRead struct {
	t float64
	n int
}

// readDelivery measures how the content of frames arrived and classes
// the stream by the first rule that holds. content is the number of
// content frames and tokens the output tokens. spanMS is last − first
// content.
func readDelivery(frames []record.Frame, content, tokens int, spanMS float64) *record.Delivery {
	d := &record.Delivery{Class: record.DeliveryBuffered}
	reads := tallyReads(d, frames)
	switch {
	case content < bufferedMinFrames:
		// Too few frames for gaps or a rate. The stream is buffered only
		// on the evidence of many tokens at once (a whole answer in a
		// frame).
		if !instant(tokens, spanMS) {
			d.Class = record.DeliveryClean
			break
		}
		d.Rule = DeliveryFewFrames
	case stutter(d, reads, content, spanMS):
		d.Class, d.Rule = record.DeliveryStutter, DeliveryInterval
	case pct(d.BurstFrames, content) >= BurstSharePctBuffered:
		d.Rule = DeliveryBursts
	case instant(tokens, spanMS):
		d.Rule = DeliveryInstant
	default:
		d.Class = record.DeliveryClean
	}
	return d
}

// instant reports tokens that arrived too fast for generation. That is at
// least instantMinTokens of them, under InstantMSPerToken apart.
func instant(tokens int, spanMS float64) bool {
	return tokens >= instantMinTokens && spanMS < InstantMSPerToken*float64(tokens-1)
}

// tallyReads fills d's counts of reads, bursts and silences from frames
// and returns the reads that carried content.
func tallyReads(d *record.Delivery, frames []record.Frame) []contentRead {
	var reads []contentRead
	read, n, bytes := -1, 0, 0
	end := func() {
		if n == 0 {
			return
		}
		if n >= BurstFrames {
			d.Bursts++
			d.BurstFrames += n
		}
		if n > d.LargestBurstFrames {
			d.LargestBurstFrames, d.LargestBurstBytes = n, bytes
		}
		reads[len(reads)-1].n = n
	}
	for i := range frames {
		f := &frames[i]
		if f.Read != read {
			end()
			read, n, bytes = f.Read, 0, 0
		}
		bytes += f.Bytes
		if !f.IsContent() {
			continue
		}
		if n == 0 {
			if len(reads) > 0 {
				d.LongestSilenceMS = max(d.LongestSilenceMS, f.TMS-reads[len(reads)-1].t)
			}
			reads = append(reads, contentRead{t: f.TMS})
			d.Reads++
		}
		n++
	}
	end()
	return reads
}

// stutter reports whether reads came in bursts at a regular interval,
// and if so fills d's stutter evidence. A burst is the reads between two
// freezes. Most content frames must have shared a read, because a server
// that flushes each token and pauses now and then is not stutter.
func stutter(d *record.Delivery, reads []contentRead, content int, spanMS float64) bool {
	minFreeze := max(FreezeMinMS, FreezePaceRatio*spanMS/float64(content-1))
	var freezes, starts []float64
	shared := 0
	for i, rd := range reads {
		if rd.n > 1 {
			shared += rd.n
		}
		if i == 0 {
			starts = append(starts, rd.t)
		} else if gap := rd.t - reads[i-1].t; gap >= minFreeze {
			freezes = append(freezes, gap)
			starts = append(starts, rd.t)
		}
	}
	if len(freezes) < StutterMinFreezes || pct(shared, content) < BurstSharePctBuffered {
		return false
	}
	slices.Sort(freezes)
	p50 := Percentile(freezes, 50)
	regular := 0
	for _, f := range freezes {
		if math.Abs(f-p50) <= StutterTolerance*p50 {
			regular++
		}
	}
	intervals := make([]float64, 0, len(starts)-1)
	for i := 1; i < len(starts); i++ {
		intervals = append(intervals, starts[i]-starts[i-1])
	}
	slices.Sort(intervals)
	period := Percentile(intervals, 50)
	if regular < StutterMinFreezes || 2*regular < len(freezes) || period > StutterMaxPeriodMS {
		return false
	}
	d.PeriodMS = &period
	d.Freezes = &record.Freezes{Count: len(freezes), P50MS: p50, LongestMS: freezes[len(freezes)-1]}
	d.FirstHeld = new(reads[0].n > 1)
	return true
}

// serverFirstTokenMS is when the server says its first token was ready, in
// ms from the request's arrival there. It reads the timings the stream
// carried. For Ollama it is load_duration + prompt_eval_duration, since
// the first token is sampled from the prompt's last logits and
// eval_duration covers the rest. For Bedrock it is firstByteLatency. TTFT
// minus it is the time the first token was held between the server and
// drip. That is the network's round trip when nothing holds it, and
// seconds behind a buffering proxy.
func serverFirstTokenMS(server map[string]any) (float64, bool) {
	num := func(k string) (float64, bool) {
		v, ok := server[k].(float64)
		return v, ok
	}
	if v, ok := num("first_byte_latency_ms"); ok {
		return v, true
	}
	prompt, ok := num("prompt_eval_duration_ms")
	if !ok {
		return 0, false
	}
	load, _ := num("load_duration_ms")
	return load + prompt, true
}
