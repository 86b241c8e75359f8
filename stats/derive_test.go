package stats

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

func content(t float64, read int, text string) record.Frame {
	return record.Frame{TMS: t, Read: read, Kind: record.KindContent, Text: text}
}

func frame(t float64, read int, k record.Kind) record.Frame {
	return record.Frame{TMS: t, Read: read, Kind: k}
}

// derive derives r's figures, which the test's record must allow.
func derive(t testing.TB, r *record.Record, stallMS float64) {
	t.Helper()
	if err := Derive(r, stallMS); err != nil {
		t.Fatal(err)
	}
}

func eq(t *testing.T, name string, got *float64, want float64) {
	t.Helper()
	if got == nil {
		t.Errorf("%s = null, want %v", name, want)
		return
	}
	if math.Abs(*got-want) > 1e-9 {
		t.Errorf("%s = %v, want %v", name, *got, want)
	}
}

func null(t *testing.T, name string, got *float64) {
	t.Helper()
	if got != nil {
		t.Errorf("%s = %v, want null", name, *got)
	}
}

// The design's worked example (definitions in docs/records.md): start 0,
// content at 0.2/0.3/0.5 s, end 0.6 s → TTFT 200 ms, gaps 100 and 200 ms,
// mean gap 150 ms, duration 600 ms.
func TestDeriveDesignExample(t *testing.T) {
	r := &record.Record{DurationMS: 600, Frames: []record.Frame{
		frame(50, 0, record.KindRole),
		content(200, 1, "a"), content(300, 2, " b"), content(500, 3, " c."),
		frame(550, 4, record.KindEnd),
	}}
	derive(t, r, 250)
	eq(t, "first_event", r.FirstEventMS, 50)
	eq(t, "ttft", r.TTFTMS, 200)
	eq(t, "ttfo", r.TTFOMS, 200)
	eq(t, "e2e", r.E2EMS, 500)
	eq(t, "tail", r.TailMS, 100)
	if r.DurationMS != 600 {
		t.Errorf("duration = %v", r.DurationMS)
	}
	gaps := r.Gaps()
	if len(gaps) != 2 || gaps[0] != 100 || gaps[1] != 200 {
		t.Fatalf("gaps = %v, want [100 200]", gaps)
	}
	d := NewDist(gaps)
	eq(t, "mean gap", d.Mean, 150)
	if r.Status != record.StatusComplete || !r.Complete {
		t.Errorf("status = %s", r.Status)
	}
	// Three content frames spread over 300 ms: not buffered; ITL over
	// approx tokens = (500-200)/(3-1).
	if r.Buffered {
		t.Error("buffered, want not")
	}
	if r.TokensSource != "approx" || r.OutputTokens != 3 {
		t.Errorf("tokens = %d %s, want 3 approx", r.OutputTokens, r.TokensSource)
	}
	eq(t, "itl", r.ITLMS, 150)
	eq(t, "tps_user", r.TPSUser, 1000.0/150)
	if len(r.Stalls) != 0 {
		t.Errorf("stalls = %v, want none below 250ms", r.Stalls)
	}
}

// The three requests of the instrument issue together: one error, two
// success durations, TTFT null for the failure.
func TestAggregateMixedRequests(t *testing.T) {
	ok := &record.Record{Seq: 0, DurationMS: 600, Frames: []record.Frame{
		content(200, 0, "a"), content(300, 1, " b"), content(500, 2, " c."), frame(550, 3, record.KindEnd),
	}}
	failed := &record.Record{Seq: 1, DurationMS: 400, Error: &record.Error{Class: record.ErrReset}}
	one := &record.Record{Seq: 2, DurationMS: 250, Frames: []record.Frame{content(100, 0, "x"), frame(120, 1, record.KindEnd)}}
	a := NewAggregate(250)
	for _, r := range []*record.Record{ok, failed, one} {
		derive(t, r, 250)
		a.Add(r)
	}
	null(t, "failed ttft", failed.TTFTMS)
	if failed.Status != record.StatusFailed {
		t.Errorf("failed status = %s", failed.Status)
	}
	if len(one.Gaps()) != 0 {
		t.Errorf("one-event stream gaps = %v, want none", one.Gaps())
	}
	if one.Buffered || failed.Buffered {
		t.Errorf("one-frame stream buffered %v, failed stream buffered %v: neither has evidence of a buffer", one.Buffered, failed.Buffered)
	}
	null(t, "one-frame itl", one.ITLMS)
	s := a.Summary(Workload{})
	if s.Streams.Attempted != 3 || s.Streams.Failed != 1 || s.Streams.Completed != 2 || s.Streams.FailedBy[record.ErrReset] != 1 {
		t.Errorf("streams = %+v", s.Streams)
	}
	if s.Metrics["ttft_ms"].N != 2 {
		t.Errorf("ttft n = %d, want 2", s.Metrics["ttft_ms"].N)
	}
	if s.Metrics["e2e_ms"].N != 2 || s.Metrics["duration_ms"].N != 3 {
		t.Errorf("e2e n = %d duration n = %d, want 2 and 3", s.Metrics["e2e_ms"].N, s.Metrics["duration_ms"].N)
	}
	eq(t, "gap p50", s.Metrics["gap_ms"].P50, 150)
	if s.Metrics["itl_ms"].N != 1 {
		t.Errorf("itl n = %d, want 1 (the one-frame stream has no rate)", s.Metrics["itl_ms"].N)
	}
}

func TestEmptyAggregateIsNull(t *testing.T) {
	s := NewAggregate(250).Summary(Workload{})
	null(t, "ttft p50", s.Metrics["ttft_ms"].P50)
	null(t, "gap max", s.Metrics["gap_ms"].Max)
	null(t, "throughput", s.Throughput.TokensPerS)
	null(t, "tokens approx pct", s.TokensApproxPct)
	if s.Metrics["ttft_ms"].N != 0 {
		t.Errorf("n = %d", s.Metrics["ttft_ms"].N)
	}
}

func TestDeriveRejectsBadTimes(t *testing.T) {
	cases := map[string]*record.Record{
		"NaN":         {DurationMS: 10, Frames: []record.Frame{content(math.NaN(), 0, "a")}},
		"infinite":    {DurationMS: math.Inf(1)},
		"negative":    {DurationMS: 10, Frames: []record.Frame{content(-1, 0, "a")}},
		"backwards":   {DurationMS: 10, Frames: []record.Frame{content(5, 0, "a"), content(4, 1, "b")}},
		"read order":  {DurationMS: 10, Frames: []record.Frame{content(4, 1, "a"), content(5, 0, "b")}},
		"after end":   {DurationMS: 10, Frames: []record.Frame{content(11, 0, "a")}},
		"NaN headers": {DurationMS: 10, HeadersMS: new(math.NaN())},
	}
	for name, r := range cases {
		if err := Derive(r, 250); !errors.Is(err, ErrBadTime) {
			t.Errorf("%s: err = %v, want ErrBadTime", name, err)
		}
	}
}

func TestTTFTSkipsRolePingUsage(t *testing.T) {
	usage := 7
	r := &record.Record{DurationMS: 900, Frames: []record.Frame{
		frame(10, 0, record.KindRole), frame(20, 1, record.KindPing),
		{TMS: 400, Read: 2, Kind: record.KindContent, Channel: record.ChannelReasoning, Text: "think"},
		content(600, 3, "Hi"), content(700, 4, " there"), content(800, 5, "."),
		{TMS: 850, Read: 6, Kind: record.KindUsage, Usage: &usage}, frame(860, 6, record.KindEnd),
	}}
	derive(t, r, 250)
	eq(t, "ttft (reasoning counts)", r.TTFTMS, 400)
	eq(t, "ttfo (first answer)", r.TTFOMS, 600)
	eq(t, "first event", r.FirstEventMS, 10)
	eq(t, "e2e (last content, not usage)", r.E2EMS, 800)
	if r.OutputTokens != 7 || r.TokensSource != "usage" {
		t.Errorf("tokens = %d %s, want 7 usage", r.OutputTokens, r.TokensSource)
	}
	// Tokens from usage: ITL = (800-400)/(7-1).
	eq(t, "itl", r.ITLMS, 400.0/6)
}

func TestStallsAndMidSentence(t *testing.T) {
	r := &record.Record{DurationMS: 3000, Frames: []record.Frame{
		content(100, 0, "One sentence ends."), content(500, 1, " Then the middle of a"),
		content(1300, 2, " sentence"), content(1350, 3, " and a line\n"), content(1700, 4, "next"),
		frame(1750, 5, record.KindEnd),
	}}
	derive(t, r, 250)
	if len(r.Stalls) != 3 {
		t.Fatalf("stalls = %+v, want 3", r.Stalls)
	}
	want := []struct {
		gap float64
		mid bool
	}{{400, false}, {800, true}, {350, false}}
	for i, w := range want {
		if r.Stalls[i].GapMS != w.gap || r.Stalls[i].MidSentence != w.mid {
			t.Errorf("stall %d = %+v, want gap %v mid %v", i, r.Stalls[i], w.gap, w.mid)
		}
	}
}

// A stall in progress is classified from the text before it as it will
// be once the next frame ends it: StopsMidSentence on the frames up to
// each stall says what the stall's flag says.
func TestStopsMidSentenceClassifiesTheStallToCome(t *testing.T) {
	r := &record.Record{DurationMS: 3000, Frames: []record.Frame{
		content(100, 0, "One sentence ends."), frame(120, 0, record.KindUsage), content(500, 1, " Then the middle of a"),
		frame(900, 2, record.KindPing), content(1300, 2, " sentence"), content(1350, 3, " and a line\n"), content(1700, 4, "next"),
		frame(1750, 5, record.KindEnd),
	}}
	derive(t, r, 250)
	if len(r.Stalls) != 3 {
		t.Fatalf("stalls = %+v, want 3", r.Stalls)
	}
	for i, st := range r.Stalls {
		live := &record.Record{Frames: r.Frames[:st.Frame]}
		if got := StopsMidSentence(live); got != st.MidSentence {
			t.Errorf("stall %d (%+v): in progress it is mid-sentence %v, ended %v", i, st, got, st.MidSentence)
		}
	}
	if StopsMidSentence(&record.Record{}) {
		t.Error("no content yet: not inside a sentence")
	}
}

func TestBufferedAndCoalesced(t *testing.T) {
	r := &record.Record{DurationMS: 1000, Frames: []record.Frame{frame(800, 0, record.KindRole)}}
	for i := range 12 {
		r.Frames = append(r.Frames, content(900, 0, "w"))
		_ = i
	}
	r.Frames = append(r.Frames, frame(900, 0, record.KindEnd))
	derive(t, r, 250)
	if !r.Buffered {
		t.Error("12 tokens in one read: want buffered")
	}
	null(t, "itl", r.ITLMS)
	null(t, "tps_user", r.TPSUser)
	if r.CoalescedFrames != 12 {
		t.Errorf("coalesced = %d, want 12", r.CoalescedFrames)
	}
	gaps := r.Gaps()
	if len(gaps) != 11 || gaps[0] != 0 {
		t.Errorf("gaps = %v, want 11 zeros kept", gaps)
	}
}

func TestStatusFromFrames(t *testing.T) {
	noEnd := &record.Record{DurationMS: 500, Frames: []record.Frame{content(100, 0, "a"), content(200, 1, "b"), content(300, 2, "c")}}
	inStream := &record.Record{DurationMS: 500, Frames: []record.Frame{content(100, 0, "a"), {TMS: 200, Read: 1, Kind: record.KindError, Text: "boom"}, frame(210, 1, record.KindEnd)}}
	empty := &record.Record{DurationMS: 500, Frames: []record.Frame{frame(100, 0, record.KindRole), frame(200, 1, record.KindEnd)}}
	for _, r := range []*record.Record{noEnd, inStream, empty} {
		derive(t, r, 250)
	}
	if noEnd.Status != record.StatusIncomplete || noEnd.E2EMS != nil || noEnd.TTFTMS == nil {
		t.Errorf("no end marker: status %s, e2e %v, ttft %v", noEnd.Status, noEnd.E2EMS, noEnd.TTFTMS)
	}
	if inStream.Status != record.StatusFailed || inStream.Error.Class != record.ErrInStream || inStream.Error.Message != "boom" {
		t.Errorf("in-stream: %s %+v", inStream.Status, inStream.Error)
	}
	if len(inStream.Frames) != 3 {
		t.Error("partial timeline lost")
	}
	if empty.Status != record.StatusFailed || empty.Error.Class != record.ErrNoContent {
		t.Errorf("no content: %s %+v", empty.Status, empty.Error)
	}
}

func TestPercentileNumpyLinear(t *testing.T) {
	xs := []float64{1, 2, 3, 4}
	cases := map[float64]float64{0: 1, 50: 2.5, 90: 3.7, 99: 3.97, 100: 4}
	for p, want := range cases {
		if got := Percentile(xs, p); math.Abs(got-want) > 1e-9 {
			t.Errorf("p%v = %v, want %v", p, got, want)
		}
	}
	if !math.IsNaN(Percentile(nil, 50)) {
		t.Error("empty percentile should be NaN")
	}
	if got := Percentile([]float64{7}, 99); got != 7 {
		t.Errorf("single = %v", got)
	}
}

// The stall's mid-sentence flag follows the text so far without keeping it
// whole: sentenceTail must answer as endsSentence on the full text, for
// texts made of pieces that are words, spaces, closing marks, newlines,
// sentence ends and the bytes of characters split across frames, in any
// order.
func TestSentenceTailMatchesFullText(t *testing.T) {
	pieces := []string{"word", " ", "\t", "\n", ".", "?", "…", "\"", "”", ")", "*", "_", " \"", "。", "a.", " \n ", "",
		"\xe3", "\x80", "\x82", "\xe3\x80", "\x80\x82", "\xe2\x80", "\x9d", "\xff"} // 。 and ” split across frames
	rng := rand.New(rand.NewPCG(1, 2))
	for range 20000 {
		var full strings.Builder
		var tail sentenceTail
		for range rng.IntN(8) {
			p := pieces[rng.IntN(len(pieces))]
			full.WriteString(p)
			tail.add(p)
			if got, want := endsSentence(string(tail)), endsSentence(full.String()); got != want {
				t.Fatalf("text %q: tail %q says %v, the full text %v", full.String(), string(tail), got, want)
			}
		}
	}
}

func BenchmarkDerive(b *testing.B) {
	words := []string{" The", " stream", " pauses", " here", ",", " then", " goes", " on."}
	r := &record.Record{DurationMS: 60000}
	t := 0.0
	for i := range 200 {
		t += float64(10 + i%7*45)                                         // a stall every seventh gap
		r.Frames = append(r.Frames, content(t, i/2, words[i%len(words)])) // two frames a read
	}
	r.Frames = append(r.Frames, frame(t, 99, record.KindEnd))
	b.ReportAllocs()
	for b.Loop() {
		if err := Derive(r, 250); err != nil {
			b.Fatal(err)
		}
	}
}

// tokensRecord is a derived measured stream: a 429 before any frame
// (failed), or content frames ending with an end marker, with the
// server's usage report when usage is set.
func tokensRecord(t *testing.T, kind string) *record.Record {
	t.Helper()
	r := &record.Record{Phase: record.PhaseMeasure, DurationMS: 100}
	switch kind {
	case "429":
		r.Error = &record.Error{Class: record.ErrHTTP429, Status: 429}
	case "usage", "approx":
		r.Frames = []record.Frame{content(10, 0, "a"), content(20, 1, " b"), content(30, 2, " c")}
		if kind == "usage" {
			n := 3
			r.Frames = append(r.Frames, record.Frame{TMS: 40, Read: 3, Kind: record.KindUsage, Usage: &n})
		}
		r.Frames = append(r.Frames, frame(50, 4, record.KindEnd))
	}
	derive(t, r, 250)
	return r
}

// tokens_approx_pct is a share of the streams that have a token count: a
// stream that failed before any content has none, so it neither counts as
// approximated nor sits in the denominator.
func TestTokensApproxPctIsOfStreamsWithACount(t *testing.T) {
	for _, tc := range []struct {
		name  string
		kinds map[string]int
		want  *float64 // nil: null
		with  int
	}{
		{"all 429s", map[string]int{"429": 10}, nil, 0},
		{"1 failed and 9 with usage", map[string]int{"429": 1, "usage": 9}, new(0.0), 9},
		{"1 failed, 3 with usage, 1 approximated", map[string]int{"429": 1, "usage": 3, "approx": 1}, new(25.0), 4},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := NewAggregate(250)
			for kind, n := range tc.kinds {
				for range n {
					a.Add(tokensRecord(t, kind))
				}
			}
			s := a.Summary(Workload{})
			if tc.want == nil {
				null(t, "tokens_approx_pct", s.TokensApproxPct)
			} else {
				eq(t, "tokens_approx_pct", s.TokensApproxPct, *tc.want)
			}
			if s.Streams.WithTokenCount != tc.with {
				t.Errorf("streams.with_token_count = %d, want %d", s.Streams.WithTokenCount, tc.with)
			}
			gate, err := ParseGate("tokens_approx_pct > 0")
			if err != nil {
				t.Fatal(err)
			}
			// null trips too, as every gate on a missing number does
			if res := gate.Eval(&s); res.Tripped != (tc.want == nil || *tc.want > 0) {
				t.Errorf("--fail-if 'tokens_approx_pct > 0' tripped = %v (%s)", res.Tripped, res.Message)
			}
		})
	}
}
