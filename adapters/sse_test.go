package adapters

import (
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// sseEvent is a recorded Event with its slices copied: Data and Type are
// only valid during the callback.
type sseEvent struct {
	Type      string
	Data      string
	Keepalive bool
	Bytes     int
}

func (e sseEvent) String() string {
	return fmt.Sprintf("{type=%q data=%q keepalive=%v bytes=%d}", e.Type, e.Data, e.Keepalive, e.Bytes)
}

// sseRun is what one way of feeding an input produced.
type sseRun struct {
	events   []sseEvent
	frames   int   // frames the parser returned; the recorder makes one per event
	feedErr  error // the first error a Feed returned
	closeErr error
	residue  int // bytes held in the block not yet dispatched (blockLen + held line)
}

// feedSSE runs the parser over chunks with a recording classifier, checking
// after every Feed that the buffers stay within the limit.
func feedSSE(t testing.TB, limit int, chunks [][]byte) sseRun {
	t.Helper()
	var r sseRun
	s := &SSE{Limit: limit, Classify: func(dst []Frame, ev *Event) []Frame {
		if ev.Keepalive && len(ev.Data) > 0 {
			t.Errorf("keepalive event with data %q", ev.Data)
		}
		r.events = append(r.events, sseEvent{string(ev.Type), string(ev.Data), ev.Keepalive, ev.Bytes})
		return append(dst, Frame{Kind: KindMeta, Bytes: ev.Bytes})
	}}
	var dst []Frame
	var err error
	for _, c := range chunks {
		n := len(dst)
		dst, err = s.Feed(dst, c)
		if len(dst) < n {
			t.Fatalf("Feed dropped frames already in dst")
		}
		checkBounded(t, s)
		if err != nil {
			if r.feedErr == nil {
				r.feedErr = err
			}
			break
		}
	}
	if r.feedErr != nil {
		// The error is sticky.
		if _, err := s.Feed(nil, []byte("data: more\n\n")); !errors.Is(err, ErrFrameTooLarge) {
			t.Errorf("Feed after failure returned %v", err)
		}
	}
	dst, r.closeErr = s.Close(dst)
	r.frames = len(dst)
	r.residue = s.blockLen + len(s.line)
	return r
}

// checkBounded asserts the parser holds no more than its limit (plus
// append's growth slack, and the "data: " before data that straddled
// reads) however the input arrives.
func checkBounded(t testing.TB, s *SSE) {
	limit := s.limit()
	if s.dataOff > len("data: ") {
		t.Fatalf("data held after %d bytes of its line", s.dataOff)
	}
	if n := len(s.line) + s.dataLen(); n > limit && n > len(bom)-1 {
		t.Fatalf("parser holds %d bytes, limit %d", n, limit)
	}
	if c := cap(s.line) + cap(s.data) + cap(s.typ); c > 4*limit+256 {
		t.Fatalf("parser buffers have capacity %d, limit %d", c, limit)
	}
}

func feedWhole(in []byte) [][]byte { return [][]byte{in} }

func feedByteByByte(in []byte) [][]byte {
	chunks := make([][]byte, len(in))
	for i := range in {
		chunks[i] = in[i : i+1]
	}
	return chunks
}

// splits returns every way of cutting in into two feeds, then byte by byte.
func everySplit(in []byte) (names []string, feeds [][][]byte) {
	for k := 0; k <= len(in); k++ {
		names = append(names, fmt.Sprintf("split@%d", k))
		feeds = append(feeds, [][]byte{in[:k], in[k:]})
	}
	names = append(names, "byte-by-byte")
	feeds = append(feeds, feedByteByByte(in))
	return names, feeds
}

func sameRun(a, b sseRun) bool {
	return slices.Equal(a.events, b.events) && a.frames == b.frames &&
		errors.Is(a.feedErr, ErrFrameTooLarge) == errors.Is(b.feedErr, ErrFrameTooLarge) &&
		(a.feedErr == nil) == (b.feedErr == nil) &&
		errors.Is(a.closeErr, ErrTruncated) == errors.Is(b.closeErr, ErrTruncated) &&
		(a.closeErr == nil) == (b.closeErr == nil)
}

// checkAllFeeds runs in whole, split at every offset and byte by byte, and
// requires identical results: events with their byte counts, and errors.
func checkAllFeeds(t *testing.T, limit int, in []byte) sseRun {
	t.Helper()
	ref := feedSSE(t, limit, feedWhole(in))
	names, feeds := everySplit(in)
	for i, f := range feeds {
		got := feedSSE(t, limit, f)
		if !sameRun(ref, got) {
			t.Fatalf("%s: got events %v (frames %d, feed %v, close %v)\nwhole gave %v (frames %d, feed %v, close %v)",
				names[i], got.events, got.frames, got.feedErr, got.closeErr,
				ref.events, ref.frames, ref.feedErr, ref.closeErr)
		}
	}
	return ref
}

func sseData(data string) sseEvent     { return sseEvent{Data: data} }
func sseTyped(t, data string) sseEvent { return sseEvent{Type: t, Data: data} }

var sseKeepalive = sseEvent{Keepalive: true}

// sseCases are WHATWG conformance cases (FORMATS §1), most from the spec
// and from eventsource-parser's and openai-go's suites. They also seed FuzzSSE.
var sseCases = []struct {
	name  string
	in    string
	want  []sseEvent // Bytes is checked by the accounting rule below
	trunc bool       // Close reports ErrTruncated
	// trailing is the count of bytes after the last dispatched event:
	// stray blank lines, the LF of a final CRLF, an unterminated block.
	trailing int
}{
	{name: "empty", in: ""},
	{name: "LF", in: "data: cow\ndata: moo\n\n", want: []sseEvent{sseData("cow\nmoo")}},
	{name: "CR", in: "data: dog\rdata: bark\r\r", want: []sseEvent{sseData("dog\nbark")}},
	{name: "CRLF", in: "data: sheep\r\ndata: bleat\r\n\r\n", want: []sseEvent{sseData("sheep\nbleat")}, trailing: 1},
	{name: "mixed endings", in: "data: a\rdata: b\ndata: c\r\n\ndata: d\r\r\n\n",
		want: []sseEvent{sseData("a\nb\nc"), sseData("d")}, trailing: 2},
	{name: "CRLF between events", in: "data: 1\r\n\r\ndata: 2\r\n\r\n", want: []sseEvent{sseData("1"), sseData("2")}, trailing: 1},
	{name: "CR then CR LF is two line ends", in: "data: one\r\r\n", want: []sseEvent{sseData("one")}, trailing: 1},
	{name: "cr separating chunks of same event", in: "data: A\r\ndata: B\r\ndata: C\r\n\n", want: []sseEvent{sseData("A\nB\nC")}},
	{name: "bare field line then cr", in: "data: one\ndata\r\ndata: two\n\n", want: []sseEvent{sseData("one\n\ntwo")}},
	{name: "leading BOM", in: "\xEF\xBB\xBFdata: hello\n\n", want: []sseEvent{sseData("hello")}},
	{name: "only one BOM stripped", in: "\xEF\xBB\xBF\xEF\xBB\xBFdata: x\n\ndata: y\n\n", want: []sseEvent{sseKeepalive, sseData("y")}},
	{name: "BOM later is an unknown field", in: "\xEF\xBB\xBFdata: bomful 1\n\n\xEF\xBB\xBFdata: bomful 2\n\ndata: bomless 3\n\n",
		want: []sseEvent{sseData("bomful 1"), sseKeepalive, sseData("bomless 3")}},
	{name: "BOM-like prefix that is not a BOM", in: "\xEF\xBBdata: x\n\n", want: []sseEvent{sseKeepalive}},
	{name: "comment-only block is one keepalive", in: ": keep-alive\n\n", want: []sseEvent{sseKeepalive}},
	{name: "several comments one block", in: ": a\n: b\n:\n\n", want: []sseEvent{sseKeepalive}},
	{name: "heartbeats", in: ": ♥\n\n: ♥\n\ndata: x\n\n: ♥\n\n", want: []sseEvent{sseKeepalive, sseKeepalive, sseData("x"), sseKeepalive}},
	{name: "comment inside an event", in: ": hi\ndata: x\n: there\n\n", want: []sseEvent{sseData("x")}},
	{name: "300 colons", in: strings.Repeat(":", 300) + "\n\n", want: []sseEvent{sseKeepalive}},
	{name: "odd comments", in: "data:1\r\r:\x00\n:\r\ndata:2\n\n", want: []sseEvent{sseData("1"), sseData("2")}},
	{name: "no space", in: "data:x\n\n", want: []sseEvent{sseData("x")}},
	{name: "one space removed", in: "data: x\n\n", want: []sseEvent{sseData("x")}},
	{name: "only one space removed", in: "data:  x\n\n", want: []sseEvent{sseData(" x")}},
	{name: "tab is kept", in: "data:\tx\n\n", want: []sseEvent{sseData("\tx")}},
	{name: "colon in value", in: "data: a: b\n\n", want: []sseEvent{sseData("a: b")}},
	{name: "bare data", in: "data\n\n", want: []sseEvent{sseData("")}},
	{name: "data colon empty", in: "data:\n\n", want: []sseEvent{sseData("")}},
	{name: "two bare data", in: "data\ndata\n\n", want: []sseEvent{sseData("\n")}},
	{name: "event type", in: "event: time\ndata: 1\n\n", want: []sseEvent{sseTyped("time", "1")}},
	{name: "event type resets after dispatch", in: "event: a\ndata: 1\n\ndata: 2\n\n", want: []sseEvent{sseTyped("a", "1"), sseData("2")}},
	{name: "last event type wins", in: "event: a\nevent: b\ndata: 1\n\n", want: []sseEvent{sseTyped("b", "1")}},
	{name: "empty event type", in: "event:\ndata: x\n\n", want: []sseEvent{sseData("x")}},
	{name: "event without data is a keepalive and resets", in: "event: a\n\ndata: x\n\n", want: []sseEvent{sseKeepalive, sseData("x")}},
	{name: "id and retry", in: "id: 1\nretry: 50\ndata: x\n\n", want: []sseEvent{sseData("x")}},
	{name: "retry only", in: "retry: 3000\n\n", want: []sseEvent{sseKeepalive}},
	{name: "id only", in: "id: 7\n\n", want: []sseEvent{sseKeepalive}},
	{name: "field names are case sensitive", in: "Data: x\nDATA: y\n\n", want: []sseEvent{sseKeepalive}},
	{name: "unknown fields", in: "data:abc\n data\ndata\nfoobar:xxx\njustsometext\n:thisisacommentyay\ndata:123\n\n",
		want: []sseEvent{sseData("abc\n\n123")}},
	{name: "plain JSON body is an unknown field", in: "{\"error\":\"Internal Server Error\"}\n\n", want: []sseEvent{sseKeepalive}},
	{name: "spec: YHOO", in: "data: YHOO\ndata: +2\ndata: 10\n\n", want: []sseEvent{sseData("YHOO\n+2\n10")}},
	{name: "spec: test stream",
		in:   ": test stream\n\ndata: first event\nid: 1\n\ndata:second event\nid\n\ndata:  third event\n\n",
		want: []sseEvent{sseKeepalive, sseData("first event"), sseData("second event"), sseData(" third event")}},
	{name: "spec: empty data", in: "data\n\ndata\ndata\n\ndata:", want: []sseEvent{sseData(""), sseData("\n")}, trunc: true, trailing: 5},
	{name: "spec: test twice", in: "data:test\n\ndata: test\n\n", want: []sseEvent{sseData("test"), sseData("test")}},
	{name: "stray blank lines fire nothing", in: "\n\n\n", trailing: 3},
	{name: "stray CR lines fire nothing", in: "\r\r\n\r", trailing: 4},
	{name: "leading blank lines", in: "\n\n\n\nid: 1\ndata: 我現在都看實況不玩遊戲\n\n", want: []sseEvent{sseData("我現在都看實況不玩遊戲")}},
	{name: "blank lines between events", in: "data: 1\n\n\n\ndata: 2\n\n\n", want: []sseEvent{sseData("1"), sseData("2")}, trailing: 1},
	{name: "openai-go: comment", in: ": OPENROUTER PROCESSING\n\ndata: {\"value\":\"first\"}\n\ndata: [DONE]\n\n",
		want: []sseEvent{sseKeepalive, sseData(`{"value":"first"}`), sseData("[DONE]")}},
	{name: "openai-go: multiple empty events",
		in:   "data: {\"value\":\"first\"}\n\n: keep-alive\n\nretry: 3000\n\ndata: {\"value\":\"second\"}\n\ndata: [DONE]\n\n",
		want: []sseEvent{sseData(`{"value":"first"}`), sseKeepalive, sseKeepalive, sseData(`{"value":"second"}`), sseData("[DONE]")}},
	{name: "NUL and high bytes pass through", in: "data: a\x00b\xff\n\n", want: []sseEvent{sseData("a\x00b\xff")}},
	{name: "unterminated last event", in: "data: x\n\ndata: y\n", want: []sseEvent{sseData("x")}, trunc: true, trailing: 8},
	{name: "unterminated line", in: "data: x", trunc: true, trailing: 7},
	{name: "unterminated after CR", in: "data: x\r", trunc: true, trailing: 8},
	{name: "unterminated comment line", in: ": ping", trunc: true, trailing: 6},
	{name: "partial BOM only", in: "\xEF\xBB", trunc: true, trailing: 2},
	{name: "bare BOM", in: "\xEF\xBB\xBF", trailing: 3},
}

func TestSSEConformance(t *testing.T) {
	t.Parallel()
	for _, tc := range sseCases {
		t.Run(tc.name, func(t *testing.T) {
			in := []byte(tc.in)
			got := checkAllFeeds(t, 0, in)
			gotNoBytes := make([]sseEvent, len(got.events))
			sum := 0
			for i, e := range got.events {
				sum += e.Bytes
				e.Bytes = 0
				gotNoBytes[i] = e
			}
			if !slices.Equal(gotNoBytes, tc.want) {
				t.Errorf("events:\n got %v\nwant %v", gotNoBytes, tc.want)
			}
			if got.frames != len(tc.want) {
				t.Errorf("frames = %d, want one per event (%d)", got.frames, len(tc.want))
			}
			if got.feedErr != nil {
				t.Errorf("Feed error %v", got.feedErr)
			}
			if tc.trunc != errors.Is(got.closeErr, ErrTruncated) || (!tc.trunc && got.closeErr != nil) {
				t.Errorf("Close = %v, truncated want %v", got.closeErr, tc.trunc)
			}
			if sum+tc.trailing != len(in) || got.residue != tc.trailing {
				t.Errorf("bytes: events sum %d + trailing %d (parser holds %d) != input %d", sum, tc.trailing, got.residue, len(in))
			}
		})
	}
}

// eventsource-parser's "stream with cr separating chunks of same event",
// with its exact feeds, and the blank-CR variant.
func TestSSEExactFeeds(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name  string
		feeds []string
		want  []sseEvent
	}{
		{"cr separating chunks of same event", []string{"data: A\r\n", "data: B\r", "\n", "data: C\r\n", "\n"}, []sseEvent{{Data: "A\nB\nC", Bytes: 28}}},
		{"blank cr line ending a chunk dispatches once", []string{"data: one\r", "\r", "\n"}, []sseEvent{{Data: "one", Bytes: 11}}},
		{"bare field terminated by cr at chunk boundary", []string{"data: one\ndata\r", "\ndata: two\n\n"}, []sseEvent{{Data: "one\n\ntwo", Bytes: 27}}},
		{"BOM split over three feeds", []string{"\xEF", "\xBB", "\xBFdata: x\n\n"}, []sseEvent{{Data: "x", Bytes: 12}}},
		{"empty feeds", []string{"", "data: x", "", "\n", "", "\n", ""}, []sseEvent{{Data: "x", Bytes: 9}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var chunks [][]byte
			for _, f := range tc.feeds {
				chunks = append(chunks, []byte(f))
			}
			got := feedSSE(t, 0, chunks)
			if !slices.Equal(got.events, tc.want) || got.feedErr != nil || got.closeErr != nil {
				t.Errorf("got %v (feed %v, close %v), want %v", got.events, got.feedErr, got.closeErr, tc.want)
			}
		})
	}
}

// Event.Bytes counts a block's wire bytes: stray blank lines before it, its
// lines and terminators, and the blank line; the LF of a dispatching CRLF is
// counted with the next block (the CR already dispatched it). This holds
// however the input is split, so per-read byte counts add up.
func TestSSEBytes(t *testing.T) {
	t.Parallel()
	in := []byte("\xEF\xBB\xBFdata: a\n\n: ping\n\n\ndata: b\r\n\r\nevent: x\rdata: c\r\r")
	got := checkAllFeeds(t, 0, in)
	want := []sseEvent{
		{Data: "a", Bytes: 3 + 9},
		{Keepalive: true, Bytes: 8},
		{Data: "b", Bytes: 1 + 9 + 1},
		{Type: "x", Data: "c", Bytes: 1 + 9 + 8 + 1},
	}
	if !slices.Equal(got.events, want) {
		t.Fatalf("got %v\nwant %v", got.events, want)
	}
	sum := 0
	for _, e := range got.events {
		sum += e.Bytes
	}
	if sum != len(in) || got.closeErr != nil {
		t.Errorf("bytes sum %d, input %d, close %v", sum, len(in), got.closeErr)
	}

	// On a realistic stream the byte counts add up to the whole body.
	wire, ends := chatStream(50)
	run := feedSSE(t, 0, eventReads(wire, ends))
	if len(run.events) != len(ends) {
		t.Fatalf("%d events, want %d", len(run.events), len(ends))
	}
	prev := 0
	for i, e := range run.events {
		if e.Bytes != ends[i]-prev {
			t.Errorf("event %d: Bytes %d, want %d", i, e.Bytes, ends[i]-prev)
		}
		prev = ends[i]
	}
}

func TestSSELimit(t *testing.T) {
	t.Parallel()
	const limit = 64
	t.Run("line just within the limit", func(t *testing.T) {
		in := []byte("data: " + strings.Repeat("x", limit-6) + "\n\n")
		got := checkAllFeeds(t, limit, in)
		if got.feedErr != nil || len(got.events) != 1 || len(got.events[0].Data) != limit-6 {
			t.Fatalf("got %v, err %v", got.events, got.feedErr)
		}
	})
	cases := []struct {
		name string
		in   string
		want []sseEvent // dispatched before the failure
	}{
		{"too long line", "data: ok\n\ndata: " + strings.Repeat("x", limit) + "\n\ndata: never\n\n", []sseEvent{{Data: "ok", Bytes: 10}}},
		{"too long unterminated line", "data: " + strings.Repeat("x", 2*limit), nil},
		{"too long comment", ": " + strings.Repeat("c", limit) + "\n\n", nil},
		{"data lines accumulate past the limit", strings.Repeat("data: 0123456789\n", 10) + "\n", nil},
		{"bare data lines accumulate", strings.Repeat("data\n", 2*limit) + "\n", nil},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got := checkAllFeeds(t, limit, []byte(tc.in))
			if !errors.Is(got.feedErr, ErrFrameTooLarge) {
				t.Fatalf("Feed error = %v, want ErrFrameTooLarge", got.feedErr)
			}
			if got.feedErr == ErrFrameTooLarge || !strings.Contains(got.feedErr.Error(), "64") {
				t.Errorf("error %q should wrap ErrFrameTooLarge and name the limit", got.feedErr)
			}
			if !errors.Is(got.closeErr, ErrFrameTooLarge) {
				t.Errorf("Close = %v, want the sticky ErrFrameTooLarge", got.closeErr)
			}
			if !slices.Equal(got.events, tc.want) {
				t.Errorf("events %v, want %v", got.events, tc.want)
			}
		})
	}
}

// A large body in realistic reads never makes the parser hold much more
// than its limit, whether it is one endless line or endless data lines.
func TestSSELimitMemoryBounded(t *testing.T) {
	t.Parallel()
	const limit = 64 << 10
	for _, tc := range []struct {
		name string
		unit string
		// maxFed bounds the bytes fed before the error: the limit counts
		// held data, which a data line holds less of than it takes on the
		// wire ("data: z\r" holds 2 of 8 bytes).
		maxFed int
	}{
		{"one endless line", "x", limit + 4096},
		{"endless data lines", "data: " + strings.Repeat("y", 90) + "\n", 2*limit + 4096},
		{"endless CR data lines", "data: z\r", 4*limit + 4096},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := bytes.Repeat([]byte(tc.unit), (4<<20)/len(tc.unit)) // 4 MiB, 64 times the limit
			s := &SSE{Limit: limit, Classify: func(dst []Frame, ev *Event) []Frame {
				t.Fatalf("event dispatched: %.20q", ev.Data)
				return dst
			}}
			var err error
			fed := 0
			for _, r := range sizedReads(body, 4096) {
				if _, err = s.Feed(nil, r); err != nil {
					break
				}
				fed += len(r)
				checkBounded(t, s)
			}
			if !errors.Is(err, ErrFrameTooLarge) {
				t.Fatalf("err = %v after %d bytes", err, fed)
			}
			if fed > tc.maxFed {
				t.Errorf("failed only after %d bytes, limit %d", fed, limit)
			}
			checkBounded(t, s)
		})
	}

	// One huge read: the error comes before the held partial line is joined.
	s := &SSE{Classify: func(dst []Frame, ev *Event) []Frame { return dst }}
	if _, err := s.Feed(nil, []byte("data: x")); err != nil {
		t.Fatal(err)
	}
	huge := bytes.Repeat([]byte("x"), DefaultFrameLimit+1)
	huge = append(huge, '\n')
	if _, err := s.Feed(nil, huge); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("default limit: err = %v", err)
	}
	if cap(s.line) > 1<<10 {
		t.Errorf("held line grew to %d bytes before the limit check", cap(s.line))
	}
}

func TestSSEDefaultLimit(t *testing.T) {
	t.Parallel()
	// Limit 0 means DefaultFrameLimit: a 1 MiB event passes, one byte over
	// 16 MiB does not.
	var got int
	s := &SSE{Classify: func(dst []Frame, ev *Event) []Frame { got = len(ev.Data); return dst }}
	big := append(append([]byte("data: "), bytes.Repeat([]byte("a"), 1<<20)...), "\n\n"...)
	if _, err := s.Feed(nil, big); err != nil || got != 1<<20 {
		t.Fatalf("1 MiB event: err %v, got %d bytes", err, got)
	}
	if _, err := s.Feed(nil, bytes.Repeat([]byte("b"), DefaultFrameLimit+1)); !errors.Is(err, ErrFrameTooLarge) {
		t.Fatalf("err = %v", err)
	}
}

// FuzzSSE feeds arbitrary bytes whole, split at a fuzzer-chosen offset and
// byte by byte: the events (with byte counts) and errors must be the same,
// nothing may panic, the parser never holds more than its limit, and every
// input byte is accounted for.
func FuzzSSE(f *testing.F) {
	for _, tc := range sseCases {
		f.Add([]byte(tc.in), uint16(len(tc.in)/2), uint16(0))
	}
	files, _ := filepath.Glob(filepath.Join("testdata", "*.sse"))
	for i, name := range files {
		b, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b, uint16(i*37), uint16(0))
		f.Add(bytes.ReplaceAll(b, []byte("\n"), []byte("\r\n")), uint16(i*53), uint16(200))
		f.Add(bytes.ReplaceAll(b, []byte("\n"), []byte("\r")), uint16(i*71), uint16(300))
	}
	f.Add([]byte("data: A\r\ndata: B\r\ndata: C\r\n\n"), uint16(17), uint16(0))
	f.Add([]byte("data: "+strings.Repeat("x", 100)+"\n\n"), uint16(50), uint16(40))
	f.Add([]byte(strings.Repeat("data: 0123456789\n", 20)+"\n"), uint16(99), uint16(100))
	f.Fuzz(func(t *testing.T, in []byte, cut, lim uint16) {
		limit := 0 // DefaultFrameLimit
		if lim != 0 {
			limit = 16 + int(lim)%1024
		}
		ref := feedSSE(t, limit, feedWhole(in))
		k := int(cut) % (len(in) + 1)
		for _, feeds := range [][][]byte{{in[:k], in[k:]}, feedByteByByte(in)} {
			if got := feedSSE(t, limit, feeds); !sameRun(ref, got) {
				t.Fatalf("feeds of %d: got %v (feed %v, close %v)\nwhole gave %v (feed %v, close %v)",
					len(feeds), got.events, got.feedErr, got.closeErr, ref.events, ref.feedErr, ref.closeErr)
			}
		}
		if ref.frames != len(ref.events) {
			t.Fatalf("%d frames for %d events", ref.frames, len(ref.events))
		}
		sum := 0
		for _, e := range ref.events {
			sum += e.Bytes
			if e.Bytes <= 0 || bytes.ContainsAny([]byte(e.Data+e.Type), "\r") || strings.Contains(e.Type, "\n") {
				t.Fatalf("bad event %v", e)
			}
		}
		if ref.feedErr == nil && sum+ref.residue != len(in) {
			t.Fatalf("events hold %d bytes, parser %d, input %d", sum, ref.residue, len(in))
		}
	})
}
