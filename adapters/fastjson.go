package adapters

import (
	"strings"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"
)

// The JSON fast path every format shares. encoding/json spends most of a
// content frame's budget on reflection and a separate validation pass, and
// allocates for every string. A format's parseFast reads the payload shapes
// servers actually send in one validating pass without allocating, and
// declines (returns false) whenever it could disagree with encoding/json. It
// declines a key that matches a field only case-insensitively or through escapes, a
// repeated field, an unexpected type, a non-integer token count, deep
// nesting. parseEither then decodes with the format's parseSlow
// (encoding/json), so the two paths never disagree. Each format's fuzz
// target checks this (fastpath_test.go, openai_test.go).

// fastSlow is a format's view of one payload with its two parsers, both
// filling the view's reused buffers after reset.
type fastSlow interface {
	reset()
	parseFast(data []byte) bool
	parseSlow(data []byte) bool
}

// parseEither reads a payload into v. It takes the fast path when it can
// vouch for the result, and encoding/json otherwise. It reports false for a payload that
// is not JSON (encoding/json rejects it).
func parseEither[T fastSlow](v T, data []byte) bool {
	v.reset()
	if v.parseFast(data) {
		return true
	}
	v.reset()
	return v.parseSlow(data)
}

const maxFastDepth = 64

type fastParser struct {
	d []byte
	i int
}

// wholeObject reads all of p.d as one JSON object (not null), calling
// member for each key as object does.
func (p *fastParser) wholeObject(member func(key []byte) (bit uint8, ok bool)) bool {
	p.ws()
	if !p.is('{') {
		return false
	}
	ok := p.object(member)
	p.ws()
	return ok && p.i == len(p.d)
}

// raw passes over any JSON value and returns it as written.
func (p *fastParser) raw() ([]byte, bool) {
	start := p.i
	ok := p.skip(0)
	return p.d[start:p.i], ok
}

// jsonText is one channel's content text in a payload, its strings in the
// order written, not yet copied. The fast path's pieces are subslices of
// the payload (which lies in the read buffer), valid only while the
// classifier runs. String makes the one copy a record keeps.
type jsonText []textPiece

// textPiece is one string of content, its bytes between the quotes as
// written. escaped says they need decoding.
type textPiece struct {
	raw     []byte
	escaped bool
}

// add appends a piece unless it is empty, so a jsonText is non-empty
// exactly when its text is (a non-empty JSON string never decodes to "").
func (t *jsonText) add(pc textPiece) {
	if len(pc.raw) > 0 {
		*t = append(*t, pc)
	}
}

// addString appends the slow path's decoded text (encoding/json's string,
// copied again by String, since the slow path is the rare one).
func (t *jsonText) addString(s string) {
	if s != "" {
		*t = append(*t, textPiece{raw: []byte(s)})
	}
}

// reset empties t for the next payload, dropping its references into the
// last read's buffer. It loops, because clear's runtime call costs more
// for the one or two pieces there are.
func (t jsonText) reset() jsonText {
	for i := range t {
		t[i] = textPiece{}
	}
	return t[:0]
}

// String returns the piece's text as a new string, the one copy of it
// from the read buffer (escapes decoded on the way). Formats whose
// channel is one field keep a textPiece, not a jsonText, so there is no
// slice to append to and reset per payload.
func (pc textPiece) String() string {
	if !pc.escaped {
		return string(pc.raw)
	}
	var b strings.Builder
	b.Grow(len(pc.raw))
	writeDecoded(&b, pc.raw)
	return b.String()
}

// set is an object member that reads a string value into *pc in place
// (nothing for null), identified by bit.
func (p *fastParser) set(pc *textPiece, bit uint8) (uint8, bool) {
	var ok bool
	*pc, ok = p.piece()
	return bit, ok
}

// pieceOf is the slow path's decoded text as a piece.
func pieceOf(s string) textPiece { return textPiece{raw: []byte(s)} }

// String returns the text as one new string, the one copy of it from the
// read buffer. Plain pieces are copied as they are, escaped ones decoded
// on the way, into a string sized for all of them up front.
func (t jsonText) String() string {
	if len(t) == 1 && !t[0].escaped { // the common frame, inlined
		return string(t[0].raw)
	}
	return t.join()
}

// join is String for several pieces or escaped ones.
func (t jsonText) join() string {
	n := 0
	for _, pc := range t {
		n += len(pc.raw) // decoding only shortens (but for U+FFFD)
	}
	var b strings.Builder
	b.Grow(n)
	for _, pc := range t {
		if pc.escaped {
			writeDecoded(&b, pc.raw)
		} else {
			b.Write(pc.raw)
		}
	}
	return b.String()
}

// writeDecoded writes a string's raw bytes, validated by scanString, to b
// as appendString decodes them, with escapes resolved and bad UTF-8 as
// U+FFFD.
func writeDecoded(b *strings.Builder, s []byte) {
	for i := 0; i < len(s); {
		switch c := s[i]; {
		case c == '\\':
			var tmp [utf8.UTFMax]byte
			out, j, _ := appendEscape(tmp[:0], s, i)
			b.Write(out)
			i = j
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && s[j] != '\\' {
				j++
			}
			b.Write(s[i:j])
			i = j
		default:
			r, size := utf8.DecodeRune(s[i:])
			b.WriteRune(r)
			i += size
		}
	}
}

// textTo is an object member that adds a string value to *t in place
// (nothing for null), identified by bit.
func (p *fastParser) textTo(t *jsonText, bit uint8) (uint8, bool) {
	if p.null() {
		return bit, true
	}
	raw, escaped, ok := p.scanString()
	if len(raw) > 0 {
		*t = append(*t, textPiece{raw, escaped})
	}
	return bit, ok
}

// piece reads a string, or null as an empty piece, without copying it.
func (p *fastParser) piece() (textPiece, bool) {
	if p.null() {
		return textPiece{}, true
	}
	raw, escaped, ok := p.scanString()
	return textPiece{raw: raw, escaped: escaped}, ok
}

// scanString passes over a string that appendString would accept and
// returns its bytes between the quotes, and whether decoding them changes
// them (an escape, or UTF-8 that encoding/json replaces with U+FFFD).
func (p *fastParser) scanString() (raw []byte, escaped, ok bool) {
	if !p.is('"') {
		return nil, false, false
	}
	d := p.d
	start := p.i + 1
	for i := start; i < len(d); {
		c := d[i]
		switch {
		case c == '"':
			p.i = i + 1
			return d[start:i], escaped, true
		case c == '\\':
			var tmp [utf8.UTFMax]byte
			if _, i, ok = appendEscape(tmp[:0], d, i); !ok {
				return nil, false, false
			}
			escaped = true
		case c < 0x20:
			return nil, false, false
		case c < utf8.RuneSelf:
			i++
			for i < len(d) && d[i] >= 0x20 && d[i] < utf8.RuneSelf && d[i] != '"' && d[i] != '\\' {
				i++
			}
		default:
			r, size := utf8.DecodeRune(d[i:])
			escaped = escaped || r == utf8.RuneError && size == 1
			i += size
		}
	}
	return nil, false, false
}

// appendTo is an object member that appends a string value to *dst
// (nothing for null), identified by bit.
func (p *fastParser) appendTo(dst *[]byte, bit uint8) (uint8, bool) {
	var ok bool
	*dst, ok = p.appendStrOrNull(*dst)
	return bit, ok
}

// textMember is an object member for an object read for its one string
// field name. It adds that field to *t in place and skips the others.
func (p *fastParser) textMember(key []byte, name string, pc *textPiece) (uint8, bool) {
	if string(key) != name {
		return 0, !foldsTo(key, name) && p.skip(0)
	}
	return p.set(pc, 1)
}

func (p *fastParser) ws() {
	for p.i < len(p.d) {
		switch p.d[p.i] {
		case ' ', '\t', '\n', '\r':
			p.i++
		default:
			return
		}
	}
}

func (p *fastParser) is(c byte) bool { return p.i < len(p.d) && p.d[p.i] == c }

// null consumes a null literal if one is next.
func (p *fastParser) null() bool {
	if len(p.d)-p.i >= 4 && string(p.d[p.i:p.i+4]) == "null" {
		p.i += 4
		return true
	}
	return false
}

// field moves to the next member of an object whose '{' (first) or
// previous value was consumed, and returns its key with the parser at its
// value. more is false at the closing brace. Keys that are not plain
// printable ASCII without escapes are declined, because encoding/json
// unescapes and Unicode-folds them before matching fields.
func (p *fastParser) field(first bool) (key []byte, more, ok bool) {
	p.ws()
	if p.is('}') {
		p.i++
		return nil, false, true
	}
	if !first {
		if !p.is(',') {
			return nil, false, false
		}
		p.i++
		p.ws()
	}
	if !p.is('"') {
		return nil, false, false
	}
	start := p.i + 1
	for i := start; i < len(p.d); i++ {
		c := p.d[i]
		if c == '"' {
			key = p.d[start:i]
			p.i = i + 1
			p.ws()
			if !p.is(':') {
				return nil, false, false
			}
			p.i++
			p.ws()
			return key, true, true
		}
		if c < 0x20 || c >= 0x7f || c == '\\' {
			return nil, false, false
		}
	}
	return nil, false, false
}

// foldsTo reports an ASCII key that encoding/json would match to one of
// names only case-insensitively.
func foldsTo(key []byte, names ...string) bool {
	for _, n := range names {
		if len(n) != len(key) {
			continue
		}
		eq := true
		for i := range len(n) {
			c := key[i]
			if 'a' <= c && c <= 'z' {
				c -= 'a' - 'A'
			}
			d := n[i]
			if 'a' <= d && d <= 'z' {
				d -= 'a' - 'A'
			}
			if c != d {
				eq = false
				break
			}
		}
		if eq {
			return true
		}
	}
	return false
}

// object walks the members of an object (or accepts null), calling member
// for each key. member parses the value and returns a bit identifying the
// field (0 for ignored keys) or ok=false to decline.
func (p *fastParser) object(member func(key []byte) (bit uint8, ok bool)) bool {
	if p.null() {
		return true
	}
	if !p.is('{') {
		return false
	}
	p.i++
	var seen uint8
	for first := true; ; first = false {
		key, more, ok := p.field(first)
		if !ok {
			return false
		}
		if !more {
			return true
		}
		bit, ok := member(key)
		if !ok || seen&bit != 0 {
			return false // a repeated field, since encoding/json's last-wins is not worth copying
		}
		seen |= bit
	}
}

// array walks the elements of an array, calling elem for each. null is
// accepted as no array (isNull true).
func (p *fastParser) array(elem func() bool) (isNull, ok bool) {
	if p.null() {
		return true, true
	}
	if !p.is('[') {
		return false, false
	}
	p.i++
	p.ws()
	if p.is(']') {
		p.i++
		return false, true
	}
	for {
		p.ws()
		if !elem() {
			return false, false
		}
		p.ws()
		switch {
		case p.is(','):
			p.i++
		case p.is(']'):
			p.i++
			return false, true
		default:
			return false, false
		}
	}
}

// integer reads a JSON number that encoding/json stores in an int without
// error. Anything else (fractions, exponents, 19+ digits) is declined.
func (p *fastParser) integer() (int, bool) {
	start := p.i
	if !p.number() {
		return 0, false
	}
	digits := p.d[start:p.i]
	neg := digits[0] == '-'
	if neg {
		digits = digits[1:]
	}
	if len(digits) > 18 {
		return 0, false
	}
	n := 0
	for _, c := range digits {
		if c < '0' || c > '9' {
			return 0, false
		}
		n = n*10 + int(c-'0')
	}
	if neg {
		n = -n
	}
	return n, true
}

// appendStrOrNull appends a string value to dst. null appends nothing, as
// encoding/json leaves a string field alone for null.
func (p *fastParser) appendStrOrNull(dst []byte) ([]byte, bool) {
	if p.null() {
		return dst, true
	}
	return p.appendString(dst)
}

// boolean reads true, false or null, which is false because encoding/json
// leaves the field.
func (p *fastParser) boolean() (v, ok bool) {
	switch {
	case p.literal("true"):
		return true, true
	case p.literal("false"), p.null():
		return false, true
	}
	return false, false
}

// appendString decodes a JSON string exactly as encoding/json does, with
// escapes resolved, invalid surrogates and malformed UTF-8 replaced by U+FFFD.
func (p *fastParser) appendString(dst []byte) ([]byte, bool) {
	if !p.is('"') {
		return dst, false
	}
	d := p.d
	i := p.i + 1
	for i < len(d) {
		c := d[i]
		switch {
		case c == '"':
			p.i = i + 1
			return dst, true
		case c == '\\':
			var ok bool
			if dst, i, ok = appendEscape(dst, d, i); !ok {
				return dst, false
			}
		case c < 0x20:
			return dst, false
		case c < utf8.RuneSelf:
			// Copy a run of plain ASCII at once.
			j := i + 1
			for j < len(d) && d[j] >= 0x20 && d[j] < utf8.RuneSelf && d[j] != '"' && d[j] != '\\' {
				j++
			}
			dst = append(dst, d[i:j]...)
			i = j
		default:
			r, size := utf8.DecodeRune(d[i:])
			dst = utf8.AppendRune(dst, r)
			i += size
		}
	}
	return dst, false
}

// appendEscape decodes the escape at d[i] (a backslash) onto dst and
// returns the index after it. A \u escape takes its low surrogate along.
func appendEscape(dst, d []byte, i int) ([]byte, int, bool) {
	if i+1 >= len(d) {
		return dst, i, false
	}
	switch d[i+1] {
	case '"', '\\', '/':
		dst = append(dst, d[i+1])
	case 'b':
		dst = append(dst, '\b')
	case 'f':
		dst = append(dst, '\f')
	case 'n':
		dst = append(dst, '\n')
	case 'r':
		dst = append(dst, '\r')
	case 't':
		dst = append(dst, '\t')
	case 'u':
		rr := getu4(d[i:])
		if rr < 0 {
			return dst, i, false
		}
		i += 6
		if utf16.IsSurrogate(rr) {
			if dec := utf16.DecodeRune(rr, getu4(d[i:])); dec != unicode.ReplacementChar {
				return utf8.AppendRune(dst, dec), i + 6, true
			}
			rr = unicode.ReplacementChar
		}
		return utf8.AppendRune(dst, rr), i, true
	default:
		return dst, i, false
	}
	return dst, i + 2, true
}

// getu4 decodes \uXXXX at the start of s, or returns -1.
func getu4(s []byte) rune {
	if len(s) < 6 || s[0] != '\\' || s[1] != 'u' {
		return -1
	}
	var r rune
	for _, c := range s[2:6] {
		switch {
		case '0' <= c && c <= '9':
			c -= '0'
		case 'a' <= c && c <= 'f':
			c = c - 'a' + 10
		case 'A' <= c && c <= 'F':
			c = c - 'A' + 10
		default:
			return -1
		}
		r = r*16 + rune(c)
	}
	return r
}

// skip validates and passes over any JSON value.
func (p *fastParser) skip(depth int) bool {
	if p.i >= len(p.d) {
		return false
	}
	switch c := p.d[p.i]; {
	case c == '"':
		return p.skipString()
	case c == '{':
		if depth >= maxFastDepth {
			return false
		}
		p.i++
		for first := true; ; first = false {
			p.ws()
			if p.is('}') {
				p.i++
				return true
			}
			if !first {
				if !p.is(',') {
					return false
				}
				p.i++
				p.ws()
			}
			if !p.is('"') || !p.skipString() {
				return false
			}
			p.ws()
			if !p.is(':') {
				return false
			}
			p.i++
			p.ws()
			if !p.skip(depth + 1) {
				return false
			}
		}
	case c == '[':
		if depth >= maxFastDepth {
			return false
		}
		_, ok := p.array(func() bool { return p.skip(depth + 1) })
		return ok
	case c == 't':
		return p.literal("true")
	case c == 'f':
		return p.literal("false")
	case c == 'n':
		return p.null()
	case c == '-' || '0' <= c && c <= '9':
		return p.number()
	}
	return false
}

func (p *fastParser) literal(s string) bool {
	if len(p.d)-p.i >= len(s) && string(p.d[p.i:p.i+len(s)]) == s {
		p.i += len(s)
		return true
	}
	return false
}

// skipString passes over a string, checking its escapes.
func (p *fastParser) skipString() bool {
	d := p.d
	for i := p.i + 1; i < len(d); i++ {
		switch c := d[i]; {
		case c == '"':
			p.i = i + 1
			return true
		case c == '\\':
			if i+1 >= len(d) {
				return false
			}
			switch d[i+1] {
			case '"', '\\', '/', 'b', 'f', 'n', 'r', 't':
				i++
			case 'u':
				if getu4(d[i:]) < 0 {
					return false
				}
				i += 5
			default:
				return false
			}
		case c < 0x20:
			return false
		}
	}
	return false
}

// number passes over a number in JSON's grammar.
func (p *fastParser) number() bool {
	d, i := p.d, p.i
	digits := func() bool {
		start := i
		for i < len(d) && '0' <= d[i] && d[i] <= '9' {
			i++
		}
		return i > start
	}
	if i < len(d) && d[i] == '-' {
		i++
	}
	switch {
	case i < len(d) && d[i] == '0':
		i++
	case !digits():
		return false
	}
	if i < len(d) && d[i] == '.' {
		i++
		if !digits() {
			return false
		}
	}
	if i < len(d) && (d[i] == 'e' || d[i] == 'E') {
		i++
		if i < len(d) && (d[i] == '+' || d[i] == '-') {
			i++
		}
		if !digits() {
			return false
		}
	}
	p.i = i
	return true
}
