package redact

import "bytes"

// MinPrefix is how much of a secret's start a TextStream masks at the end
// of a piece, before it knows whether the rest follows. A key opens with a
// few public bytes (sk-, AIza, a scheme word), so text that ends with three
// of them is left alone. Four or more are masked, which may star a few bytes
// of text that did not go on to be the key, never more than a secret's
// length. It is below MinSecretLen, so every secret has such a prefix.
const MinPrefix = 4

// TextStream masks one stream's text handed on in pieces (a response's
// frames, in arrival order), where a secret may be split across pieces
// (a model saying the key token by token). A piece comes back masked
// where it holds part of a secret that ends in it, and where it ends with
// a credential's first MinPrefix bytes or more. Of a credential split
// across pieces, only what stood before its MinPrefix-th byte can show (at
// most MinPrefix-1 bytes), since what was handed on cannot be taken back.
// A secret that holds another (a header's "Bearer sk-…", a cookie list)
// is masked where it ends but not by its prefix. Its start is a scheme
// word or a name (the text "Bears" would lose "Bear"), and the credential
// in it has the rule of its own. Lengths stay as they were. A nil
// TextStream masks nothing.
type TextStream struct {
	values [][]byte
	eager  []bool // values[i] holds no other, so its prefix is masked at a piece's end
	carry  []byte // the last keep raw bytes seen, where a secret may have begun
	buf    []byte // carry + the piece, reused
	keep   int    // the longest secret's length - 1
}

// Stream starts masking a new stream's text. For a nil Masker it is nil.
func (m *Masker) Stream() *TextStream {
	if m == nil {
		return nil
	}
	return &TextStream{values: m.raw, eager: m.eager, keep: m.keep}
}

// Next masks the stream's next piece of text.
func (s *TextStream) Next(piece string) string {
	if s == nil {
		return piece
	}
	s.buf = append(append(s.buf[:0], s.carry...), piece...)
	base := len(s.carry) // where the piece starts in buf
	var out []byte
	star := func(from, to int) { // masks the piece's part of buf[from:to]
		if from = max(from, base); from >= to {
			return
		}
		if out == nil {
			out = []byte(piece)
		}
		for i := from; i < to; i++ {
			out[i-base] = '*'
		}
	}
	for _, v := range s.values {
		// Occurrences wholly in the carry were masked when they ended.
		for at := max(0, base-len(v)+1); ; {
			j := bytes.Index(s.buf[at:], v)
			if j < 0 {
				break
			}
			star(at+j, at+j+len(v))
			at += j + 1 // overlapping occurrences too
		}
	}
	if from := cutEnd(s.buf, s.values, s.eager); from < len(s.buf) {
		star(from, len(s.buf))
	}
	s.carry = append(s.carry[:0], s.buf[max(0, len(s.buf)-s.keep):]...)
	if out == nil {
		return piece
	}
	return string(out)
}

// Resume makes s go on from where o is, o a stream of the same Masker.
// s's text, as far as it remembers it (the longest secret's length - 1
// bytes), becomes o's. Two streams that remember the same text mask a
// next piece alike, so a caller that knows they do (FrameText's views of
// a long run of one channel) may hand the piece to one and Resume the
// other when they part.
func (s *TextStream) Resume(o *TextStream) {
	s.carry = append(s.carry[:0], o.carry...)
}

// Remembers is how many bytes of its text a stream remembers. Streams
// whose last Remembers bytes of text are the same mask a next piece alike.
func (s *TextStream) Remembers() int { return s.keep }

// cutEnd is where b's end, b cut off there, holds one of values' first
// MinPrefix bytes or more (the longest such start). Those are masked,
// because the rest of that secret, if it follows, is not in b to be
// masked with them. A secret that holds another has no such rule (see TextStream).
// len(b) when b ends with no such start.
func cutEnd(b []byte, values [][]byte, eager []bool) int {
	from := len(b)
	for i, v := range values {
		if eager[i] {
			if k := trailingPrefix(b, v); k > 0 {
				from = min(from, len(b)-k)
			}
		}
	}
	return from
}

// trailingPrefix is the length of the longest proper prefix of v, of
// MinPrefix bytes or more, that b ends with, or 0 if there is none. It looks
// for v's first byte from the earliest place such a prefix could start.
func trailingPrefix(b, v []byte) int {
	last := len(b) - MinPrefix // the latest start
	for i := max(0, len(b)-len(v)+1); i <= last; i++ {
		j := bytes.IndexByte(b[i:last+1], v[0])
		if j < 0 {
			return 0
		}
		if i += j; bytes.HasPrefix(v, b[i:]) {
			return len(b) - i
		}
	}
	return 0
}
