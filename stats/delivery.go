package stats

import "github.com/driplab/drip/record"

// The delivery rule decides "buffered" from how the content arrived, not
// only from how long it took. A buffering proxy (nginx's default
// proxy_buffering with an HTTP/1.0 upstream) hands the client its buffer
// when the buffer fills: through nginx, a 128-token Ollama stream came in
// 4–8 reads of about 4 KB, 1.2 s apart, each read carrying 16–32 frames. A
// fast server that flushes every token arrives in a read per frame even at
// 0.5 ms a token (64 tokens in 62–64 reads over 30 ms). Frames per read
// tell the two apart; time alone does not. docs/delivery.md has the rule
// and the figures behind it.
const (
	// BurstFrames: a read carrying at least this many content frames is a
	// burst. A server that flushes each token gives 1, now and then 2 when
	// two flushes meet in the client's socket buffer.
	BurstFrames = 4
	// BurstSharePctBuffered: a stream is buffered when at least this share
	// of its content frames came in bursts.
	BurstSharePctBuffered = 50.0
	// InstantMSPerToken: content arriving faster than this per token
	// (20,000 tokens a second for one user) is delivery, not generation,
	// whatever the reads: no model streams one user that fast.
	InstantMSPerToken = 0.05
	// instantMinTokens: the instant rule needs this many tokens to say so.
	instantMinTokens = 10
)

// Delivery rules: the rule that made a stream buffered.
const (
	DeliveryFewFrames = "few-frames" // fewer than bufferedMinFrames content frames
	DeliveryBursts    = "bursts"     // most content frames came in reads of BurstFrames or more
	DeliveryInstant   = "instant"    // tokens faster than InstantMSPerToken apart
)

// readDelivery measures how the content of frames arrived and which
// delivery rule, if any, makes the stream buffered. content is the
// number of content frames and tokens the output tokens; spanMS is last
// − first content.
func readDelivery(frames []record.Frame, content, tokens int, spanMS float64) *record.Delivery {
	d := &record.Delivery{}
	read, n, bytes := -1, 0, 0
	prevT := -1.0
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
			d.Reads++
			if prevT >= 0 {
				d.LongestSilenceMS = max(d.LongestSilenceMS, f.TMS-prevT)
			}
			prevT = f.TMS
		}
		n++
	}
	end()
	switch {
	case content < bufferedMinFrames:
		d.Rule = DeliveryFewFrames
	case pct(d.BurstFrames, content) >= BurstSharePctBuffered:
		d.Rule = DeliveryBursts
	case tokens >= instantMinTokens && spanMS < InstantMSPerToken*float64(tokens-1):
		d.Rule = DeliveryInstant
	}
	return d
}

// serverFirstTokenMS is when the server says its first token was ready, in
// ms from the request's arrival there, from the timings its stream
// carried: Ollama's load_duration + prompt_eval_duration (the first token
// is sampled from the prompt's last logits; eval_duration covers the
// rest), or Bedrock's firstByteLatency. TTFT minus it is the time the
// first token was held between the server and drip: the network's round
// trip when nothing holds it, seconds behind a buffering proxy.
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
