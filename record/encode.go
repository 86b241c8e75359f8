package record

import (
	"bytes"
	"encoding/json"
	"math"
	"strconv"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// Frames are most of a record's bytes, and encoding/json spends about
// 400 ns on each by reflection; when 1,000 streams end together, that is
// CPU taken from the streams still reading. appendRecord writes a record
// byte for byte as encoding/json would (HTML escaping off, so prompts and
// text read as they are), with the frames written by hand: FuzzFrameJSON
// and TestRecordJSONMatchesEncodingJSON hold the two to the same bytes.
//
// Both also escape every rune a terminal could act on that encoding/json
// writes raw (DEL, C1, bidi overrides, every rune but ZWJ that is not
// graphic), as the terminal backstop (sanitize.Writer) does: a record
// file written to a terminal (--out /dev/stdout) bypasses it, and a
// \uXXXX escape reads back as the same string.

// framesNull is the frames field of a record encoded without its frames.
// Only keys sit outside strings, and no key before it is "frames", so its
// first occurrence is the field. readsNull is the witness's reads field,
// the only "reads" key that can be null (Record.Reads and Delivery.Reads
// are numbers, Exchange.Reads is left out when nil), and it comes before
// the frames.
var (
	framesNull = []byte(`"frames":null`)
	readsNull  = []byte(`"reads":null`)
)

// appendRecord appends r as Writer's JSON line (newline included). A
// witness's reads, one a read as frames are, are written by hand too.
func appendRecord(dst []byte, r *Record) ([]byte, error) {
	head := *r
	head.Frames = nil
	var reads []WitnessRead
	if r.Witness != nil && r.Witness.Reads != nil {
		w := *r.Witness
		reads, w.Reads = w.Reads, nil
		head.Witness = &w
	}
	b, err := marshalLine(&head)
	if err != nil {
		return append(dst, b...), err
	}
	if reads != nil {
		i := bytes.Index(b, readsNull)
		dst = append(dst, b[:i+len(readsNull)-len("null")]...)
		if dst, err = appendWitnessReads(dst, reads); err != nil {
			return dst, err
		}
		b = b[i+len(readsNull):]
	}
	if r.Frames == nil {
		return append(dst, b...), nil
	}
	i := bytes.Index(b, framesNull)
	dst = append(dst, b[:i+len(framesNull)-len("null")]...)
	dst = append(dst, '[')
	for j := range r.Frames {
		if j > 0 {
			dst = append(dst, ',')
		}
		if dst, err = appendFrame(dst, &r.Frames[j]); err != nil {
			return dst, err
		}
	}
	dst = append(dst, ']')
	return append(dst, b[i+len(framesNull):]...), nil
}

// appendWitnessReads appends reads as encoding/json encodes them. A lag
// that is not finite goes through encoding/json, which refuses it.
func appendWitnessReads(dst []byte, reads []WitnessRead) ([]byte, error) {
	dst = append(dst, '[')
	for j := range reads {
		r := &reads[j]
		if j > 0 {
			dst = append(dst, ',')
		}
		if math.IsNaN(r.LagMS) || math.IsInf(r.LagMS, 0) {
			_, err := marshalLine(r)
			return dst, err
		}
		dst = append(dst, `{"lag_ms":`...)
		dst = appendMicros(dst, r.LagMS)
		dst = append(dst, `,"segs":`...)
		dst = strconv.AppendInt(dst, int64(r.Segs), 10)
		if r.OutOfOrder != 0 {
			dst = append(dst, `,"ooo":`...)
			dst = strconv.AppendInt(dst, int64(r.OutOfOrder), 10)
		}
		if r.Retransmits != 0 {
			dst = append(dst, `,"retrans":`...)
			dst = strconv.AppendInt(dst, int64(r.Retransmits), 10)
		}
		if r.NoStamp {
			dst = append(dst, `,"no_stamp":true`...)
		}
		if r.NoSegs {
			dst = append(dst, `,"no_segs":true`...)
		}
		dst = append(dst, '}')
	}
	return append(dst, ']'), nil
}

// marshalLine is encoding/json's line for v, HTML escaping off, with the
// runes it writes raw that a terminal acts on escaped.
func marshalLine(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return escapeInert(buf.Bytes()), err
}

// zeroWidthJoiner is a format rune emoji need, which the backstop keeps.
const zeroWidthJoiner = '\u200d'

// inert reports a rune of U+007F or above that a terminal shows and does
// not act on: a graphic one, or ZWJ.
func inert(c rune) bool { return c == zeroWidthJoiner || unicode.IsGraphic(c) }

// escapeInert escapes, in JSON that encoding/json wrote, every rune not
// inert (these sit only inside strings, where \uXXXX is the same rune).
// A line of ASCII text and graphic runes is returned as it is.
func escapeInert(b []byte) []byte {
	i := 0
	for i < len(b) {
		if b[i] < utf8.RuneSelf && b[i] != 0x7f {
			i++
			continue
		}
		c, size := utf8.DecodeRune(b[i:])
		if c == 0x7f || !inert(c) {
			break
		}
		i += size
	}
	if i == len(b) {
		return b
	}
	out := append(make([]byte, 0, len(b)+64), b[:i]...)
	for i < len(b) {
		c, size := utf8.DecodeRune(b[i:])
		if c == 0x7f || c >= utf8.RuneSelf && !inert(c) {
			out = appendEscape(out, c)
		} else {
			out = append(out, b[i:i+size]...)
		}
		i += size
	}
	return out
}

// appendEscape appends c as \uXXXX, a surrogate pair past the BMP.
func appendEscape(dst []byte, c rune) []byte {
	const hex = "0123456789abcdef"
	units := [2]rune{c}
	n := 1
	if c > 0xffff {
		units[0], units[1] = utf16.EncodeRune(c)
		n = 2
	}
	for _, u := range units[:n] {
		dst = append(dst, '\\', 'u', hex[u>>12&0xf], hex[u>>8&0xf], hex[u>>4&0xf], hex[u&0xf])
	}
	return dst
}

// appendFrame appends f as encoding/json encodes a Frame. The rare frame
// with a server map (a format's final timings) goes through encoding/json,
// which sorts and compacts it; so does a time that is not finite, which
// it refuses.
func appendFrame(dst []byte, f *Frame) ([]byte, error) {
	if f.Server != nil || math.IsNaN(f.TMS) || math.IsInf(f.TMS, 0) {
		b, err := marshalLine(f)
		return append(dst, bytes.TrimSuffix(b, []byte("\n"))...), err
	}
	dst = append(dst, `{"t_ms":`...)
	dst = appendFloat(dst, f.TMS)
	dst = append(dst, `,"read":`...)
	dst = strconv.AppendInt(dst, int64(f.Read), 10)
	dst = append(dst, `,"bytes":`...)
	dst = strconv.AppendInt(dst, int64(f.Bytes), 10)
	dst = append(dst, `,"kind":`...)
	dst = appendString(dst, f.Kind.String())
	if f.Channel != 0 {
		dst = append(dst, `,"channel":`...)
		dst = appendString(dst, f.Channel.String())
	}
	if f.Tokens != 0 {
		dst = append(dst, `,"tokens":`...)
		dst = strconv.AppendInt(dst, int64(f.Tokens), 10)
	}
	if f.Text != "" {
		dst = append(dst, `,"text":`...)
		dst = appendString(dst, f.Text)
	}
	if f.Usage != nil {
		dst = append(dst, `,"usage":`...)
		dst = strconv.AppendInt(dst, int64(*f.Usage), 10)
	}
	return append(dst, '}'), nil
}

// appendFloat formats a finite float64 as encoding/json does (ES6 number
// to string: exponents only below 1e-6 or from 1e21, never padded).
func appendFloat(dst []byte, v float64) []byte {
	format := byte('f')
	if abs := math.Abs(v); abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	dst = strconv.AppendFloat(dst, v, format, -1, 64)
	if n := len(dst); format == 'e' && n >= 4 && dst[n-4] == 'e' && dst[n-3] == '-' && dst[n-2] == '0' {
		dst[n-2] = dst[n-1] // e-09 → e-9
		dst = dst[:n-1]
	}
	return dst
}

// appendMicros appends v as appendFloat does. Every lag the witness
// takes is whole µs in ms (probe's lagUS), and for such a figure the
// shortest decimal is the µs over 1000, written here from the integer;
// strconv's search for it was most of the cost of a read's line, and a
// record has one a read.
func appendMicros(dst []byte, v float64) []byte {
	us := math.Round(v * 1000)
	if us < 1 || us >= 1<<32 || us/1000 != v {
		return appendFloat(dst, v)
	}
	k := uint64(us)
	dst = strconv.AppendUint(dst, k/1000, 10)
	frac := k % 1000
	if frac == 0 {
		return dst
	}
	digits := [4]byte{'.', byte('0' + frac/100), byte('0' + frac/10%10), byte('0' + frac%10)}
	n := len(digits)
	for digits[n-1] == '0' {
		n--
	}
	return append(dst, digits[:n]...)
}

// appendString quotes s as marshalLine does: quote, backslash and control
// bytes escaped, invalid UTF-8 as U+FFFD, DEL and every rune not inert
// (U+2028 and U+2029 among them) escaped.
func appendString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		if b := s[i]; b < utf8.RuneSelf {
			if b >= 0x20 && b != '"' && b != '\\' && b != 0x7f {
				i++
				continue
			}
			dst = append(dst, s[start:i]...)
			switch b {
			case '"', '\\':
				dst = append(dst, '\\', b)
			case '\b':
				dst = append(dst, '\\', 'b')
			case '\f':
				dst = append(dst, '\\', 'f')
			case '\n':
				dst = append(dst, '\\', 'n')
			case '\r':
				dst = append(dst, '\\', 'r')
			case '\t':
				dst = append(dst, '\\', 't')
			default:
				dst = append(dst, '\\', 'u', '0', '0', hex[b>>4], hex[b&0xF])
			}
			i++
			start = i
			continue
		}
		c, size := utf8.DecodeRuneInString(s[i:])
		switch {
		case c == utf8.RuneError && size == 1:
			dst = append(dst, s[start:i]...)
			dst = append(dst, `\ufffd`...)
		case !inert(c):
			dst = append(dst, s[start:i]...)
			dst = appendEscape(dst, c)
		default:
			i += size
			continue
		}
		i += size
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}
