package stats

import (
	"testing"

	"github.com/driplab/drip/record"
)

// stream builds a complete record: n content frames of bytes each, the
// i-th at at(i) in read read(i), then the end marker.
func stream(n, bytes int, at func(int) float64, read func(int) int) *record.Record {
	r := &record.Record{}
	for i := range n {
		f := content(at(i), read(i), " w")
		f.Bytes = bytes
		r.Frames = append(r.Frames, f)
	}
	last := r.Frames[n-1]
	r.Frames = append(r.Frames, frame(last.TMS, last.Read, record.KindEnd))
	r.DurationMS = last.TMS + 1
	return r
}

// withUsage ends r with the server's report of tokens output tokens.
func withUsage(r *record.Record, tokens int) *record.Record {
	r.Frames[len(r.Frames)-1].Usage = new(tokens)
	return r
}

func TestDeliveryRule(t *testing.T) {
	for _, tc := range []struct {
		name    string
		rec     *record.Record
		rule    string
		reads   int
		largest int
		bursts  int
		itl     float64 // when not buffered
		silence float64
		burstB  int
	}{
		// A fast server: 64 tokens 0.5 ms apart, each in its own read.
		{name: "fast server, a read a frame", rec: stream(64, 90, func(i int) float64 { return 20 + 0.5*float64(i) }, func(i int) int { return i }),
			reads: 64, largest: 1, itl: 0.5, silence: 0.5, burstB: 90},
		// The same with two flushes meeting in the socket now and then.
		{name: "fast server, frames in pairs", rec: stream(64, 90, func(i int) float64 { return 20 + 0.5*float64(i-i%2) }, func(i int) int { return i / 2 }),
			reads: 32, largest: 2, itl: 31.0 / 63, silence: 1, burstB: 180},
		// A buffering proxy: 128 tokens of 150 bytes in 6 reads of about
		// 4 KB, 1.2 s apart.
		{name: "buffering proxy", rec: stream(128, 150, func(i int) float64 { return 1200 * float64(1+i*6/128) }, func(i int) int { return i * 6 / 128 }),
			rule: DeliveryBursts, reads: 6, largest: 22, bursts: 6, silence: 1200, burstB: 22 * 150},
		// The whole answer in one write after a wait.
		{name: "one write after a wait", rec: stream(40, 60, func(int) float64 { return 800 }, func(int) int { return 0 }),
			rule: DeliveryBursts, reads: 1, largest: 40, bursts: 1, burstB: 2400},
		// 1,000 tokens within 1 ms after 10 s, each in its own read.
		{name: "1,000 tokens in 1 ms", rec: stream(1000, 20, func(i int) float64 { return 10000 + float64(i)/1000 }, func(i int) int { return i }),
			rule: DeliveryInstant, reads: 1000, largest: 1, silence: 0.001, burstB: 20},
		// Two frames of a token each: nothing says they were held.
		{name: "two frames", rec: stream(2, 20, func(i int) float64 { return 100 * float64(i+1) }, func(i int) int { return i }),
			reads: 2, largest: 1, silence: 100, burstB: 20, itl: -1},
		// One frame carrying a whole answer's 40 tokens (usage) at once.
		{name: "one frame of 40 tokens", rec: withUsage(stream(1, 900, func(int) float64 { return 800 }, func(int) int { return 0 }), 40),
			rule: DeliveryFewFrames, reads: 1, largest: 1, burstB: 900},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := tc.rec
			derive(t, r, DefaultStall)
			d := r.Delivery
			if d == nil {
				t.Fatal("no delivery")
			}
			if d.Rule != tc.rule || r.Buffered != (tc.rule != "") {
				t.Errorf("rule %q buffered %v, want %q", d.Rule, r.Buffered, tc.rule)
			}
			if d.Reads != tc.reads || d.LargestBurstFrames != tc.largest || d.Bursts != tc.bursts || d.LargestBurstBytes != tc.burstB {
				t.Errorf("delivery %+v, want %d reads, largest %d frames of %d bytes, %d bursts", *d, tc.reads, tc.largest, tc.burstB, tc.bursts)
			}
			if diff := d.LongestSilenceMS - tc.silence; diff > 1e-9 || diff < -1e-9 {
				t.Errorf("longest silence %v, want %v", d.LongestSilenceMS, tc.silence)
			}
			if tc.rule != "" {
				null(t, "itl", r.ITLMS)
				null(t, "tps_user", r.TPSUser)
				return
			}
			if tc.itl < 0 {
				null(t, "itl of too few frames for a rate", r.ITLMS)
				return
			}
			eq(t, "itl", r.ITLMS, tc.itl)
		})
	}
}

// A buffered stream's throughput is end to end: 1,000 tokens in 1 ms
// after 10 s is 100 tokens a second.
func TestBufferedThroughputEndToEnd(t *testing.T) {
	r := stream(1000, 20, func(i int) float64 { return 10000 + float64(i)/1000 }, func(i int) int { return i / 250 })
	derive(t, r, DefaultStall)
	a := NewAggregate(DefaultStall)
	a.Add(r)
	s := a.Summary(Workload{})
	if s.Streams.Buffered != 1 || s.Metrics["itl_ms"].N != 0 || s.Metrics["tps_user"].N != 0 {
		t.Errorf("buffered %d, itl n %d, tps_user n %d: want 1, 0, 0", s.Streams.Buffered, s.Metrics["itl_ms"].N, s.Metrics["tps_user"].N)
	}
	if tp := s.Throughput.TokensPerS; tp == nil || *tp < 99.9 || *tp > 100 {
		t.Errorf("throughput %v, want 1000 tokens / 10.000999 s", tp)
	}
	if sg := s.Signals; sg.ReadBuffered != 1 || sg.LargestBurstFrames != 250 || sg.LargestBurstBytes != 5000 {
		t.Errorf("signals %+v", sg)
	}
}

// held_ms is TTFT minus the server's own time to its first token.
func TestHeldFromServerTimings(t *testing.T) {
	usage := 100
	r := stream(100, 80, func(i int) float64 { return 1300 + float64(i)*0.1 }, func(i int) int { return i / 25 })
	r.Frames[len(r.Frames)-1].Usage = &usage
	for _, tc := range []struct {
		server map[string]any
		want   *float64
	}{
		// Ollama: load 10 + prompt eval 40; eval_duration is the rest.
		{map[string]any{"load_duration_ms": 10.0, "prompt_eval_duration_ms": 40.0, "eval_duration_ms": 3870.0}, new(1300 - 50.0)},
		// Bedrock: firstByteLatency.
		{map[string]any{"first_byte_latency_ms": 402.0}, new(898.0)},
		{map[string]any{"latency_ms": 812.0}, nil},
	} {
		r.Server = tc.server
		derive(t, r, DefaultStall)
		if tc.want == nil {
			null(t, "held_ms", r.HeldMS)
			continue
		}
		eq(t, "held_ms", r.HeldMS, *tc.want)
	}
}

// The first burst counts tokens from usage when the stream reported it,
// not bytes / 4.
func TestFirstBurstTokensFromUsage(t *testing.T) {
	usage := 32
	r := stream(8, 0, func(i int) float64 { return 100 * float64(1+i/4) }, func(i int) int { return i / 4 })
	for i := range 8 {
		r.Frames[i].Text = "a rather long piece of text, many bytes per token"
	}
	if got := firstBurstTokens(r); got != 4*13 {
		t.Fatalf("without usage: %d, want 4 frames × 13 (bytes / 4)", got)
	}
	r.Frames[len(r.Frames)-1].Usage = &usage
	derive(t, r, DefaultStall)
	if got := firstBurstTokens(r); got != 16 {
		t.Errorf("with usage 32 over 8 frames: first read of 4 frames = %d tokens, want 16", got)
	}
}

// A stream canceled or failed part way has no delivery class, however
// its content came: what arrived before the end says nothing of how the
// answer is delivered. The same frames from a stream that ended are
// buffered (most came eight to a read).
func TestCanceledAndFailedStreamsAreNeverBuffered(t *testing.T) {
	t.Parallel()
	bursts := func() *record.Record {
		return stream(24, 20, func(i int) float64 { return 300 + float64(i/8)*400 }, func(i int) int { return i / 8 })
	}
	for _, tc := range []struct {
		name     string
		err      *record.Error
		buffered bool
	}{
		{"ended", nil, true},
		{"canceled", &record.Error{Class: record.ErrCanceled}, false},
		{"reset", &record.Error{Class: record.ErrReset}, false},
	} {
		r := bursts()
		r.Error = tc.err
		if err := Derive(r, DefaultStall); err != nil {
			t.Fatal(err)
		}
		if r.Buffered != tc.buffered || (r.Delivery == nil) == tc.buffered {
			t.Errorf("%s stream (status %s): buffered %v, delivery %+v; want buffered %v", tc.name, r.Status, r.Buffered, r.Delivery, tc.buffered)
		}
	}
}
