package adapters

import (
	"strings"
	"testing"
	"unsafe"
)

// The read path copies content text once, from the read into the frame's
// Text: these tests check where the decoders' views point on the way.

// within reports whether sub lies inside buf's bytes.
func within(sub, buf []byte) bool {
	if len(sub) == 0 || len(buf) == 0 {
		return false
	}
	s, b := uintptr(unsafe.Pointer(&sub[0])), uintptr(unsafe.Pointer(&buf[0]))
	return s >= b && s+uintptr(len(sub)) <= b+uintptr(len(buf))
}

// TestSSEDataInPlace: a block wholly inside one read is handed over as a
// subslice of it; a block that goes on past its read is carried over and
// never aliases a read the caller may reuse.
func TestSSEDataInPlace(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		reads   []string
		data    string
		inPlace bool // Data lies in the last read
	}{
		{"one read", []string{"data: abc\n\n"}, "abc", true},
		{"after an earlier block", []string{": ping\n\nid: 1\ndata: abc\n\n"}, "abc", true},
		{"CRLF", []string{"data: abc\r\n\r\n"}, "abc", true},
		{"line straddles reads", []string{"data: a", "bc\n\n"}, "abc", false},
		{"blank line in the next read", []string{"data: abc\n", "\n"}, "abc", false},
		{"two data lines", []string{"data: a\ndata: bc\n\n"}, "a\nbc", false},
		{"straddling, then a second line", []string{"data: a", "b\ndata: c\n\n"}, "ab\nc", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got string
			var aliased, aliasedEarlier bool
			reads := make([][]byte, len(tc.reads))
			s := &SSE{Classify: func(dst []Frame, ev *Event) []Frame {
				if ev.Keepalive {
					return dst
				}
				got = string(ev.Data)
				last := reads[len(reads)-1]
				aliased = within(ev.Data, last)
				for _, r := range reads[:len(reads)-1] {
					aliasedEarlier = aliasedEarlier || within(ev.Data, r)
				}
				return dst
			}}
			for i, r := range tc.reads {
				reads[i] = []byte(r)
				if _, err := s.Feed(nil, reads[i]); err != nil {
					t.Fatal(err)
				}
			}
			if got != tc.data || aliased != tc.inPlace || aliasedEarlier {
				t.Errorf("data %q in the last read %v, in an earlier read %v; want %q, %v, false",
					got, aliased, aliasedEarlier, tc.data, tc.inPlace)
			}
		})
	}
}

// TestEventStreamPayloadInPlace: a message wholly inside a read is parsed
// where it lies; one that straddles reads is carried over.
func TestEventStreamPayloadInPlace(t *testing.T) {
	t.Parallel()
	wire := eventStreamFile(t, "bedrock_converse.events")
	var payloads [][]byte
	d := NewBedrockDecoder(0, func(dst []Frame, m *EventMessage, n int) []Frame {
		payloads = append(payloads, m.Payload)
		return dst
	})
	first := esMessageLen(wire)
	cut := first + 5 // the second message straddles the two reads
	a, b := wire[:cut], wire[cut:]
	if _, err := d.Feed(nil, a); err != nil {
		t.Fatal(err)
	}
	if _, err := d.Feed(nil, b); err != nil {
		t.Fatal(err)
	}
	if len(payloads) < 3 {
		t.Fatalf("%d messages, want at least 3", len(payloads))
	}
	if !within(payloads[0], a) || within(payloads[1], a) || within(payloads[1], b) || !within(payloads[2], b) {
		t.Errorf("payload in place: first %v (want true), straddling %v/%v (want false/false), third %v (want true)",
			within(payloads[0], a), within(payloads[1], a), within(payloads[1], b), within(payloads[2], b))
	}
}

// esMessageLen is the total length of the message at the start of wire.
func esMessageLen(wire []byte) int {
	return int(wire[0])<<24 | int(wire[1])<<16 | int(wire[2])<<8 | int(wire[3])
}

// textSink keeps the compiler from dropping a String it inlined.
var textSink string

// TestContentTextOneCopy: the fast parser leaves content where it lies in
// the payload, plain or escaped, and String makes the text in one
// allocation, also for text joined from several strings.
func TestContentTextOneCopy(t *testing.T) {
	for _, tc := range []struct {
		name, payload, want string
		escaped             bool
	}{
		{"plain", `{"choices":[{"delta":{"content":" world"}}]}`, " world", false},
		{"unicode", `{"choices":[{"delta":{"content":"héllo 你好"}}]}`, "héllo 你好", false},
		{"escaped", `{"choices":[{"delta":{"content":"a\n\"b\"\u00e9\ud83d\ude00"}}]}`, "a\n\"b\"é😀", true},
		{"bad UTF-8", "{\"choices\":[{\"delta\":{\"content\":\"a\xffb\"}}]}", "a\uFFFDb", true},
		{"reasoning and text", `{"choices":[{"delta":{"reasoning_content":"think ","content":"say"}}]}`, "think say", false},
		{"two choices", `{"choices":[{"delta":{"content":"a\tb"}},{"delta":{"content":" c"}}]}`, "a\tb c", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			payload := []byte(tc.payload)
			var ci chunkInfo
			if !ci.parseFast(payload) {
				t.Fatalf("fast path declined %s", payload)
			}
			text := append(append(jsonText(nil), ci.reasoning...), ci.text...)
			escaped := false
			for _, pc := range text {
				escaped = escaped || pc.escaped
				if !within(pc.raw, payload) {
					t.Errorf("piece %q is not in the payload", pc.raw)
				}
			}
			if got := text.String(); got != tc.want || escaped != tc.escaped {
				t.Errorf("text %q, escaped %v; want %q, %v", got, escaped, tc.want, tc.escaped)
			}
			// Bad UTF-8 may cost a second allocation: U+FFFD is three
			// bytes for each bad one, past the size allotted up front.
			if n := testing.AllocsPerRun(100, func() { textSink = text.String() }); n != 1 && tc.name != "bad UTF-8" {
				t.Errorf("String: %v allocations, want 1", n)
			}
		})
	}
}

// TestContentTextDecodesAsSlowPath: String of escaped text is what
// encoding/json decodes, also past the size sized up front (U+FFFD for
// each bad byte is three bytes for one).
func TestContentTextDecodesAsSlowPath(t *testing.T) {
	t.Parallel()
	for _, s := range []string{`\u0041\/\b\f\r`, "\xff\xfe\xfd", `\ud800x`, `\ud83d\u0041`, strings.Repeat(`\\`, 40)} {
		payload := []byte(`{"choices":[{"delta":{"content":"` + s + `"}}]}`)
		var fast, slow chunkInfo
		if !fast.parseFast(payload) || !slow.parseSlow(payload) {
			t.Fatalf("%q: fast %v, slow %v", payload, fast.parseFast(payload), slow.parseSlow(payload))
		}
		if f, s := fast.text.String(), slow.text.String(); f != s {
			t.Errorf("%q: fast %q, encoding/json %q", payload, f, s)
		}
	}
}

// TestOneFieldTextOneCopy: formats whose content is one field keep one
// piece, in the payload, and make its string in one allocation.
func TestOneFieldTextOneCopy(t *testing.T) {
	for _, tc := range []struct{ payload, want string }{
		{`{"type":"content_block_delta","delta":{"type":"text_delta","text":"plain"}}`, "plain"},
		{`{"type":"content_block_delta","delta":{"type":"text_delta","text":"tab\there \u00e9"}}`, "tab\there é"},
	} {
		payload := []byte(tc.payload)
		var a anthropicInfo
		if !a.parseFast(payload) {
			t.Fatalf("fast path declined %s", payload)
		}
		if got := a.text.String(); got != tc.want || !within(a.text.raw, payload) {
			t.Errorf("%s: text %q (in the payload: %v), want %q", payload, got, within(a.text.raw, payload), tc.want)
		}
		if n := testing.AllocsPerRun(100, func() { textSink = a.text.String() }); n != 1 {
			t.Errorf("%s: String: %v allocations, want 1", payload, n)
		}
	}
}
