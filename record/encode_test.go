package record_test

import (
	"bytes"
	"encoding/json"
	"math"
	"strings"
	"testing"
	"unicode"
	"unicode/utf16"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Records with every kind of frame a format produces, and texts that
// need escaping, encode to the bytes encoding/json writes.
func TestRecordJSONMatchesEncodingJSON(t *testing.T) {
	texts := []string{"", "plain", ` "quoted" \ back`, "line\nbreak\ttab\r\b\f\x00\x1f\x7f",
		"<html> & más — 日本語 🙂", "bad \xff\xfe utf8 \xe2\x28", "sep \u2028 \u2029 end"}
	times := []float64{0, 1e-7, 0.000001, 12.345678901, 1500, 1e21, 123456789.5}
	seven := 7
	var frames []record.Frame
	for i, text := range texts {
		for j, tms := range times {
			f := record.Frame{TMS: tms, Read: i, Bytes: 10 * j, Kind: adapters.Kind(j % 7), Text: text}
			if f.Kind == adapters.KindContent {
				f.Channel = adapters.Channel(i % 3)
				f.Tokens = j
			}
			if j == 3 {
				f.Usage = &seven
			}
			if j == 5 {
				f.Server = map[string]json.RawMessage{"z_ms": json.RawMessage(` 12 `), "a": json.RawMessage(`{"b": [1, 2]}`)}
			}
			frames = append(frames, f)
		}
	}
	ttft := 12.5
	recs := []*record.Record{
		{Seq: 1, Frames: frames, TTFTMS: &ttft, Error: &record.Error{Class: record.ErrInStream, Message: `"frames":null <b>`},
			Request: json.RawMessage(`{"frames":null}`), Server: map[string]any{"total_ms": 3.5}},
		{Seq: 2, Frames: []record.Frame{}},
		{Seq: 3},
		{Seq: 4, Frames: frames[:3], Delivery: &record.Delivery{Reads: 3}, Witness: &record.Witness{Stamped: true,
			Reads: []record.WitnessRead{{LagMS: 0.125, Segs: 2}, {NoStamp: true, NoSegs: true},
				{LagMS: 1e-7, Segs: -1, OutOfOrder: 3, Retransmits: 2}, {LagMS: 1e21, Segs: 1, NoSegs: true}}},
			Exchange: &record.Exchange{}},
		{Seq: 5, Witness: &record.Witness{Reads: []record.WitnessRead{}}},
	}
	for _, r := range recs {
		want, err := record.MarshalLine(r)
		if err != nil {
			t.Fatal(err)
		}
		got, err := record.AppendRecord(nil, r)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("record %d:\n got %s\nwant %s", r.Seq, got, want)
		}
	}
	// A time encoding/json refuses is refused, not written.
	bad := &record.Record{Frames: []record.Frame{{TMS: math.NaN()}}}
	if _, err := record.AppendRecord(nil, bad); err == nil {
		t.Error("a NaN frame time was encoded")
	}
	bad = &record.Record{Witness: &record.Witness{Reads: []record.WitnessRead{{LagMS: math.Inf(1)}}}}
	if _, err := record.AppendRecord(nil, bad); err == nil {
		t.Error("an infinite lag was encoded")
	}
}

func FuzzFrameJSON(f *testing.F) {
	f.Add("hello", 12.5, 3, 40, 2, uint8(adapters.KindContent), uint8(1), int64(-1))
	f.Add("\x00\"\\\u2028\xff", 1e-9, 0, 0, 0, uint8(0), uint8(0), int64(12))
	f.Fuzz(func(t *testing.T, text string, tms float64, read, size, tokens int, kind, channel uint8, usage int64) {
		fr := record.Frame{TMS: tms, Read: read, Bytes: size, Kind: adapters.Kind(kind), Channel: adapters.Channel(channel), Tokens: tokens, Text: text}
		if usage >= 0 {
			u := int(usage)
			fr.Usage = &u
		}
		want, werr := record.MarshalLine(&fr)
		got, gerr := record.AppendFrame(nil, &fr)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("encoding/json error %v, appendFrame error %v", werr, gerr)
		}
		if werr == nil && !bytes.Equal(got, bytes.TrimSuffix(want, []byte("\n"))) {
			t.Fatalf("frame %+v:\n got %s\nwant %s", fr, got, want)
		}
	})
}

func BenchmarkWriteRecord(b *testing.B) {
	words := []string{" The", " stream", " pauses", " here", ",", " then", " goes", " on."}
	r := &record.Record{DurationMS: 60000}
	t := 0.0
	for i := range 200 {
		t += float64(10+i%7*45) + 0.123456
		r.Frames = append(r.Frames, record.Frame{TMS: t, Read: i / 2, Bytes: 120, Kind: adapters.KindContent, Text: words[i%len(words)]})
	}
	r.Frames = append(r.Frames, record.Frame{TMS: t, Read: 100, Bytes: 14, Kind: adapters.KindEnd})
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		b.Fatal(err)
	}
	b.Run("encoding-json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			record.MarshalLine(r)
		}
	})
	b.Run("appendRecord", func(b *testing.B) {
		b.ReportAllocs()
		var buf []byte
		for b.Loop() {
			buf, _ = record.AppendRecord(buf[:0], r)
		}
	})
}

// A record line holds no rune a terminal acts on: written to one
// (--out /dev/stdout), it passes the terminal backstop unchanged, since
// the encoder escapes DEL, C1 and every other rune the backstop would
// (bidi overrides and isolates, other format and unassigned runes) as
// \uXXXX, which reads back as the same string. encoding/json escapes
// only C0, so U+009B (a CSI) and U+202E were written raw.
func TestRecordLinePassesTheTerminalBackstopUnchanged(t *testing.T) {
	t.Parallel()
	var all strings.Builder
	for r := rune(0); r <= unicode.MaxRune; r++ {
		if !utf16.IsSurrogate(r) {
			all.WriteRune(r)
		}
	}
	text := all.String()
	r := &record.Record{V: record.RecordVersion, Seq: 1, Model: text, Error: &record.Error{Class: record.ErrInStream, Message: text},
		Frames: []record.Frame{{TMS: 1, Kind: adapters.KindContent, Text: text}, {TMS: 2, Kind: adapters.KindEnd}}}
	line, err := record.AppendRecord(nil, r)
	if err != nil {
		t.Fatal(err)
	}
	var shown bytes.Buffer
	if _, err := sanitize.NewWriter(&shown).Write(line); err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(shown.Bytes(), line) {
		i := 0
		for i < len(line) && i < shown.Len() && line[i] == shown.Bytes()[i] {
			i++
		}
		t.Errorf("the backstop changed the line at byte %d: %q became %q", i, line[i:min(i+12, len(line))], shown.Bytes()[i:min(i+12, shown.Len())])
	}
	var back record.Record
	if err := json.Unmarshal(line, &back); err != nil || back.Model != text || back.Frames[0].Text != text || back.Error.Message != text {
		t.Errorf("the line does not read back as the record: %v", err)
	}
}

// A lag of whole µs, as the witness takes every one, is written from its
// integer, and reads as encoding/json writes it; so does any other figure.
func TestAppendMicrosMatchesEncodingJSON(t *testing.T) {
	t.Parallel()
	var figures []float64
	for us := range 200_000 {
		figures = append(figures, float64(us)/1000)
	}
	for _, us := range []uint64{1<<32 - 1, 1 << 32, 4_000_000_001, 123_456_789} {
		figures = append(figures, float64(us)/1000)
	}
	figures = append(figures, 0.0001, 0.1234, 1e-7, 2.5e-3+1e-12, 1e21, 0.3)
	for _, v := range figures {
		want, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		if got := record.AppendMicros(nil, v); !bytes.Equal(got, want) {
			t.Fatalf("%v: got %s, want %s", v, got, want)
		}
	}
}
