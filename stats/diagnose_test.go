package stats

import (
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/textfmt/numfmt"
	"github.com/driplab/drip/record"
)

// dist is a distribution with the figures the diagnosis reads.
func dist(n int, p50, p90, p99 float64) Dist {
	return Dist{N: n, P50: new(p50), P90: new(p90), P99: new(p99), Max: new(p99)}
}

func TestDiagnose(t *testing.T) {
	healthy := func() Summary {
		return Summary{
			Streams: Streams{Admitted: 20, Completed: 20},
			Metrics: Metrics{
				"ttft_ms": dist(20, 200, 230, 260), "gap_ms": dist(2000, 25, 28, 40),
				"e2e_ms": dist(20, 2700, 2800, 2900), "output_tokens": dist(20, 100, 100, 100),
			},
			Stalls:  Stalls{ThresholdMS: 250},
			Signals: Signals{ContentFrames: 2000},
		}
	}
	for _, tc := range []struct {
		name     string
		edit     func(*Summary)
		want     []string
		evidence string // a piece of the first hint's evidence
	}{
		{"healthy", func(*Summary) {}, nil, ""},
		{"queue: TTFT high, gaps tight", func(s *Summary) {
			s.Metrics["ttft_ms"] = dist(20, 2400, 3100, 3500)
		}, []string{ShapeQueue}, "ttft p50 2.4 s ≥ 1 s"},
		{"high TTFT with loose gaps is not a queue", func(s *Summary) {
			s.Metrics["ttft_ms"] = dist(20, 2400, 3100, 3500)
			s.Metrics["gap_ms"] = dist(2000, 25, 60, 200)
		}, nil, ""},
		{"transport: TTFT tight, fat gap tail", func(s *Summary) {
			s.Metrics["gap_ms"] = dist(2000, 25, 30, 700)
		}, []string{ShapeTransport}, "gap p99 700 ms ≥ the 250 ms stall threshold"},
		{"transport: TTFT tight, coalesced bursts", func(s *Summary) {
			s.Metrics["gap_ms"] = dist(2000, 0, 30, 60)
			s.Signals.CoalescedFrames = 900
		}, []string{ShapeTransport, ShapeCoalesced}, "45% of content frames coalesced"},
		{"transport: buffered streams and compression", func(s *Summary) {
			s.Streams.Buffered = 10
			s.Signals.Compressed = 20
		}, []string{ShapeTransport}, "20 streams compressed"},
		{"a fat tail with a spread TTFT is not transport", func(s *Summary) {
			s.Metrics["ttft_ms"] = dist(20, 200, 900, 1000)
			s.Metrics["gap_ms"] = dist(2000, 25, 30, 700)
		}, nil, ""},
		{"long answer: flat, total high", func(s *Summary) {
			s.Metrics["e2e_ms"] = dist(20, 42000, 44000, 45000)
			s.Metrics["output_tokens"] = dist(20, 1600, 1700, 1800)
		}, []string{ShapeLongAnswer}, "e2e p50 42 s ≥ 10 s"},
		{"shared capacity: per-stream ITL spread for one prompt", func(s *Summary) {
			s.PerPrompt = []PromptStats{
				{ID: "calm", Completed: 10, ITL: dist(10, 20, 24, 25), TTFT: dist(10, 200, 220, 230)},
				{ID: "busy", Completed: 10, ITL: dist(10, 20, 55, 60), TTFT: dist(10, 200, 220, 230)},
			}
		}, []string{ShapeSharedCapacity}, "prompt busy: per-stream itl p90 55 ms is 2.75 × p50 20 ms (≥ 2, n=10)"},
		{"too few identical runs say nothing about spread", func(s *Summary) {
			s.PerPrompt = []PromptStats{{ID: "busy", Completed: 4, ITL: dist(4, 20, 55, 60), TTFT: dist(4, 200, 220, 230)}}
		}, nil, ""},
		{"first content frame carrying many tokens", func(s *Summary) {
			s.Signals.FirstBursts, s.Signals.FirstBurstMax = 3, 40
		}, []string{ShapeFirstBurst}, "3 streams' first content read carried ≥ 8 tokens (most 40;"},
		{"coalescing under the transport threshold is still flagged", func(s *Summary) {
			s.Signals.CoalescedFrames = 300
		}, []string{ShapeCoalesced}, "300 of 2000 content frames (15%)"},
		{"success with zero content", func(s *Summary) {
			s.Signals.ZeroContent = 2
		}, []string{ShapeZeroContent}, "2 streams answered 2xx"},
		{"a body with no frame is not a stream", func(s *Summary) {
			s.Workload.Format = "openai-chat"
			s.Signals.NoFrames = 3
		}, []string{ShapeNotAStream}, "3 streams answered 2xx with a body from which no openai-chat frame was decoded"},
		{"one stream is one stream, not 1 streams", func(s *Summary) {
			s.Workload.Format = "openai-chat"
			s.Signals.NoFrames = 1
		}, []string{ShapeNotAStream}, "1 stream answered 2xx with a body from which no openai-chat frame was decoded"},
		{"one stream's first burst", func(s *Summary) {
			s.Signals.FirstBursts, s.Signals.FirstBurstMax = 1, 40
		}, []string{ShapeFirstBurst}, "1 stream's first content read carried"},
		{"client-limited open loop", func(s *Summary) {
			s.OpenLoop = &OpenLoop{ScheduleLag: dist(100, 3, 9, 25), LagBoundMS: 10, ClientLimited: true}
		}, []string{ShapeClientLimited}, "schedule lag p99 25 ms > 10 ms"},
		{"proxy buffering names neither queue nor transport nor coalescing", func(s *Summary) {
			s.Metrics["ttft_ms"] = dist(20, 2400, 2500, 2600)
			s.Metrics["gap_ms"] = dist(2000, 0, 0, 0.42)
			s.Signals.CoalescedFrames = 2000
			s.Signals.ContentStreams, s.Signals.ReadBuffered = 20, 20
			s.Signals.LargestBurstFrames, s.Signals.LargestBurstBytes, s.Signals.LongestSilenceMS = 32, 4096, 1200
			s.Signals.FirstBursts, s.Signals.FirstBurstMax = 20, 32
			s.Metrics["held_ms"] = dist(20, 1150, 1200, 1250)
		}, []string{ShapeProxyBuffering}, "20 of 20 streams with content (100%) buffered by their reads"},
		{"proxy buffering evidence: the burst, the silence, the time held", func(s *Summary) {
			s.Signals.ContentStreams, s.Signals.ReadBuffered = 20, 5
			s.Signals.LargestBurstFrames, s.Signals.LargestBurstBytes, s.Signals.LongestSilenceMS = 32, 4096, 1200
			s.Metrics["held_ms"] = dist(20, 1150, 1200, 1250)
		}, []string{ShapeProxyBuffering}, "largest burst 32 content frames in one read of 4 KiB; longest silence between content reads 1.2 s; the server had its first token held_ms p50 1.15 s before"},
		{"a queue with coalesced frames is not also transport", func(s *Summary) {
			s.Metrics["ttft_ms"] = dist(20, 2400, 2500, 2600)
			s.Metrics["gap_ms"] = dist(2000, 0, 2, 3)
			s.Signals.CoalescedFrames = 900
		}, []string{ShapeQueue, ShapeCoalesced}, "ttft p50 2.4 s ≥ 1 s"},
		{"gaps under a millisecond: the floor is printed, the arithmetic true", func(s *Summary) {
			s.Metrics["ttft_ms"] = dist(20, 10180, 10300, 10400)
			s.Metrics["gap_ms"] = dist(2000, 0, 0.2, 0.42)
		}, []string{ShapeQueue}, "ttft p50 10.2 s ≥ 1 s; gap p99 0.42 ms ≤ 4 ms = 4 × max(gap p50 0 ms, 1 ms)"},
		{"client-limited by drip's own scheduling excludes the endpoint's shapes", func(s *Summary) {
			s.Metrics["ttft_ms"] = dist(20, 5000, 5200, 5400)
			s.Client = &Client{SchedLatency: dist(900, 2, 30, 670), BoundMS: new(500.0), Limited: true}
			s.Signals.ContentStreams, s.Signals.ReadBuffered = 20, 20
			s.PerPrompt = []PromptStats{{ID: "busy", Completed: 10, ITL: dist(10, 20, 55, 60), TTFT: dist(10, 200, 220, 230)}}
		}, []string{ShapeClientLimited}, "drip's goroutines waited for a core p99 670 ms ≥ 500 ms = max(10 ms, 0.1 × ttft p50 5 s) after"},
		{"no samples, no hints", func(s *Summary) { *s = Summary{} }, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := healthy()
			tc.edit(&s)
			got := Diagnose(&s)
			var shapes []string
			for _, d := range got {
				shapes = append(shapes, d.Shape)
				if d.Hint == "" || d.Evidence == "" {
					t.Errorf("%s without hint or evidence", d.Shape)
				}
			}
			if !slices.Equal(shapes, tc.want) {
				t.Fatalf("shapes %v, want %v (%+v)", shapes, tc.want, got)
			}
			if tc.evidence != "" && !strings.Contains(got[0].Evidence, tc.evidence) {
				t.Errorf("evidence %q lacks %q", got[0].Evidence, tc.evidence)
			}
		})
	}
}

// The signals come from records: the first read's tokens, coalescing and
// successes without content.
func TestWorkloadSignals(t *testing.T) {
	burst := &record.Record{HTTPStatus: 200, Frames: []record.Frame{
		content(100, 0, "This whole first sentence came at once, "), content(100, 0, "with more."), content(150, 1, " end."),
	}}
	empty := &record.Record{HTTPStatus: 200, Frames: []record.Frame{content(100, 0, ""), content(120, 1, " "), content(130, 2, ""), frame(140, 2, record.KindEnd)}}
	noContent := &record.Record{HTTPStatus: 200, Frames: []record.Frame{frame(100, 0, record.KindRole), frame(140, 1, record.KindEnd)}}
	agg := NewAggregate(DefaultStall)
	for i, r := range []*record.Record{burst, empty, noContent} {
		r.Seq, r.Phase, r.PromptID, r.DurationMS = i, record.PhaseMeasure, "p", 200
		derive(t, r, DefaultStall)
		agg.Add(r)
	}
	s := agg.Summary(Workload{})
	sg := s.Signals
	if sg.FirstBursts != 1 || sg.FirstBurstMax != 13 || sg.ZeroContent != 2 || sg.CoalescedFrames != 2 || sg.ContentFrames != 6 {
		t.Errorf("signals %+v", sg)
	}
	if len(s.PerPrompt) != 1 || s.PerPrompt[0].Streams != 3 || s.PerPrompt[0].Completed != 1 || s.PerPrompt[0].Failed != 1 || s.PerPrompt[0].Incomplete != 1 {
		t.Errorf("per prompt %+v", s.PerPrompt)
	}
}

// A 2xx body that decoded into no frame counts as not a stream; one with
// frames, an error status or no body does not.
func TestNoFramesSignal(t *testing.T) {
	at := 1.5
	whole := &record.Record{HTTPStatus: 200, FirstByteMS: &at}
	framed := &record.Record{HTTPStatus: 200, FirstByteMS: &at, Frames: []record.Frame{content(100, 0, "hi"), frame(140, 1, record.KindEnd)}}
	refused := &record.Record{HTTPStatus: 503, FirstByteMS: &at}
	empty := &record.Record{HTTPStatus: 200}
	agg := NewAggregate(DefaultStall)
	for i, r := range []*record.Record{whole, framed, refused, empty} {
		r.Seq, r.Phase, r.PromptID, r.DurationMS = i, record.PhaseMeasure, "p", 200
		derive(t, r, DefaultStall)
		agg.Add(r)
	}
	if s := agg.Summary(Workload{}); s.Signals.NoFrames != 1 {
		t.Errorf("no_frames %d, want 1 (the 2xx body without a frame)", s.Signals.NoFrames)
	}
}

// Evidence prints figures in the unit their magnitude reads best in,
// never with an exponent.
func TestEvidenceNumbers(t *testing.T) {
	for _, tc := range []struct {
		ms   float64
		want string
	}{
		{0, "0 ms"}, {0.42, "0.42 ms"}, {0.0123, "0.01 ms"}, {0.00001, "0.00001 ms"}, {2.754, "2.8 ms"},
		{25, "25 ms"}, {250, "250 ms"}, {999.4, "999 ms"}, {1000, "1 s"}, {10180, "10.2 s"},
		{42000, "42 s"}, {90000, "90 s"}, {1e7, "10000 s"},
	} {
		if got := numfmt.MS(tc.ms); got != tc.want {
			t.Errorf("numfmt.MS(%v) = %q, want %q", tc.ms, got, tc.want)
		}
	}
	if got := bytesText(4096); got != "4 KiB" {
		t.Errorf("bytesText(4096) = %q", got)
	}
	if got := bytesText(612); got != "612 B" {
		t.Errorf("bytesText(612) = %q", got)
	}
}

// Over many summaries, no two shapes that contradict each other fire
// together and no evidence carries an exponent.
func TestDiagnoseNoContradictions(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 4))
	pick := func(xs ...float64) float64 { return xs[rng.IntN(len(xs))] }
	contradict := [][2]string{
		{ShapeQueue, ShapeTransport}, {ShapeProxyBuffering, ShapeQueue}, {ShapeProxyBuffering, ShapeTransport},
		{ShapeClientLimited, ShapeQueue}, {ShapeClientLimited, ShapeSharedCapacity}, {ShapeClientLimited, ShapeProxyBuffering},
	}
	for range 5000 {
		ttft := pick(0.3, 200, 2400, 10180, 1e5)
		gap := pick(0, 0.5, 25, 300)
		s := Summary{
			Streams: Streams{Admitted: 20, Completed: 20},
			Metrics: Metrics{
				"ttft_ms": dist(20, ttft, ttft*pick(1, 1.4, 3), ttft*pick(1.5, 4)),
				"gap_ms":  dist(2000, gap, gap*2, pick(0.42, gap*3, 700, 1.2e4)),
				"e2e_ms":  dist(20, pick(2700, 42000), 44000, 45000), "output_tokens": dist(20, 100, 100, 100),
			},
			Stalls: Stalls{ThresholdMS: 250},
			Signals: Signals{ContentFrames: 2000, CoalescedFrames: rng.IntN(2001), ContentStreams: 20, ReadBuffered: rng.IntN(21),
				FirstBursts: rng.IntN(3), FirstBurstMax: 40, LargestBurstFrames: 32, LargestBurstBytes: 4096, LongestSilenceMS: pick(0, 1200, 1.018e4)},
		}
		if rng.IntN(3) == 0 {
			s.Client = &Client{SchedLatency: dist(100, 1, 5, pick(3, 67)), BoundMS: new(ClientLagBoundMS)}
			s.Client.Limited = *s.Client.SchedLatency.P99 >= ClientLagBoundMS
		}
		got := map[string]bool{}
		for _, d := range Diagnose(&s) {
			got[d.Shape] = true
			if strings.Contains(d.Evidence, "e+") || strings.Contains(d.Evidence, "e-") {
				t.Fatalf("%s evidence with an exponent: %s", d.Shape, d.Evidence)
			}
		}
		for _, c := range contradict {
			if got[c[0]] && got[c[1]] {
				t.Fatalf("both %s and %s for %+v", c[0], c[1], s.Metrics)
			}
		}
	}
}

// The client is limiting when drip's scheduling latency p99 reaches 10 ms
// and a tenth of the TTFT p50: 235 ms under a 527 ms TTFT (2,000 streams
// on 2 cores) is; 12.6 ms under 183 ms (300 streams) is a tail.
func TestClientLimitedBound(t *testing.T) {
	for _, tc := range []struct {
		p99, ttft float64
		limited   bool
		bound     float64
		n         int
	}{{235, 527, true, 52.7, 12146}, {12.6, 183, false, 18.3, 5637}, {12.6, 40, true, 10, 100}, {9, 40, false, 10, 100},
		{50.3, 40, false, 10, 29}, // a few streams' wake-ups: the p99 is one hiccup
	} {
		a := NewAggregate(DefaultStall)
		r := stream(3, 10, func(i int) float64 { return tc.ttft + float64(i) }, func(i int) int { return i })
		derive(t, r, DefaultStall)
		a.Add(r)
		a.SetRun(RunStats{SchedLatency: dist(tc.n, 0.1, 1, tc.p99)})
		s := a.Summary(Workload{})
		if s.Client == nil || s.Client.Limited != tc.limited || s.Client.BoundMS == nil || math.Abs(*s.Client.BoundMS-tc.bound) > 1e-9 {
			t.Errorf("p99 %v under ttft %v: client %+v, want limited %v at %v", tc.p99, tc.ttft, s.Client, tc.limited, tc.bound)
		}
		if got := slices.ContainsFunc(s.Diagnosis, func(d Diagnosis) bool { return d.Shape == ShapeClientLimited }); got != tc.limited {
			t.Errorf("p99 %v under ttft %v: client-limited hint %v, want %v", tc.p99, tc.ttft, got, tc.limited)
		}
	}
}

// A hint says only what its figures show: behind a compressing proxy with
// even gaps (nginx with gzip, 25 ms gaps) the transport hint does not call
// delivery uneven, and proxy buffering speaks of stalls only when there
// were some.
func TestHintsMatchTheirFigures(t *testing.T) {
	even := func() Summary {
		return Summary{
			Streams: Streams{Admitted: 3, Completed: 3},
			Metrics: Metrics{"ttft_ms": dist(3, 182, 182, 182), "gap_ms": dist(111, 25.2, 25.6, 27.4)},
			Stalls:  Stalls{ThresholdMS: 250},
			Signals: Signals{ContentFrames: 114, ContentStreams: 3, Compressed: 3},
		}
	}
	hint := func(s Summary, shape string) Diagnosis {
		t.Helper()
		for _, d := range Diagnose(&s) {
			if d.Shape == shape {
				return d
			}
		}
		t.Fatalf("no %s hint for %+v", shape, s)
		return Diagnosis{}
	}
	d := hint(even(), ShapeTransport)
	if strings.Contains(d.Hint, "uneven") || !strings.Contains(d.Hint, "delivery here was even") ||
		!strings.Contains(d.Evidence, "3 streams compressed; delivery even: gap p99 27 ms < the 250 ms stall threshold and < 252 ms") {
		t.Errorf("compressed, even gaps: %s (%s)", d.Hint, d.Evidence)
	}
	few := even()
	few.Metrics["gap_ms"] = dist(1, 25.2, 25.2, 25.2)
	if d := hint(few, ShapeTransport); strings.Contains(d.Hint, "even") || !strings.Contains(d.Hint, "too few gaps here to judge delivery") ||
		!strings.Contains(d.Evidence, "gap n=1: too few (< 2) to judge delivery") {
		t.Errorf("compressed, one gap: %s (%s)", d.Hint, d.Evidence)
	}
	fat := even()
	fat.Metrics["gap_ms"] = dist(111, 25.2, 25.6, 700)
	if d := hint(fat, ShapeTransport); !strings.Contains(d.Hint, "delivery is uneven") || strings.Contains(d.Evidence, "delivery even") {
		t.Errorf("compressed, a fat gap tail: %s (%s)", d.Hint, d.Evidence)
	}

	buffered := even()
	buffered.Signals = Signals{ContentFrames: 76, ContentStreams: 2, ReadBuffered: 2, LargestBurstFrames: 21}
	if d := hint(buffered, ShapeProxyBuffering); strings.Contains(d.Hint, "stalls") {
		t.Errorf("no stall, yet the hint speaks of them: %s", d.Hint)
	}
	buffered.Stalls.Count = 2
	if d := hint(buffered, ShapeProxyBuffering); !strings.Contains(d.Hint, "the stalls are real waits") {
		t.Errorf("2 stalls, the hint does not say what they are: %s", d.Hint)
	}
}
