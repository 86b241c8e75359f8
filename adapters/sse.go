package adapters

import (
	"bytes"
	"fmt"
)

// Event is one dispatched SSE event (WHATWG HTML §9.2.6), or a data-less
// block (comments, retry or id only) that the spec would not dispatch but a
// timestamper reports as a keepalive.
type Event struct {
	Type []byte // the event field, "message" when empty
	// Data is the data lines joined with LF, valid only during the
	// callback. It is usually a subslice of the read that completed the
	// event.
	Data []byte
	// Keepalive marks a block without data, with comments, retry, id or
	// event only.
	Keepalive bool
	// Bytes is the block's wire bytes, blank line included, counting any
	// stray blank lines before it and a leading BOM. The LF of a CRLF that
	// ends the block is counted with the next block (the CR already ended
	// it), so counts do not depend on how the input was split into reads.
	Bytes int
}

// SSE is a WHATWG-conformant push parser for text/event-stream. It does not
// interpret event payloads. Classify turns each event into frames.
type SSE struct {
	Classify func(dst []Frame, ev *Event) []Frame
	Limit    int // largest event in bytes, DefaultFrameLimit when 0

	line []byte // a line not yet ended by CR, LF or CRLF
	// A block's data is framed in place. Its only data line so far is
	// inPlace, a subslice of the read (or of line, for a line that
	// straddled reads, when line becomes data). It is copied into data,
	// the one extra copy, only when the block goes on past the read or has
	// a second data line. data[dataOff:] is then the data.
	inPlace   []byte
	data      []byte
	dataOff   int
	typ       []byte
	hasData   bool
	hasFields bool // the block had a comment or a non-data field
	blockLen  int
	skipLF    bool // the previous read ended with CR, so a leading LF belongs to it
	started   bool // past the optional leading BOM
	err       error
	ev        Event     // handed to Classify, kept here so it does not escape per event
	bad       badEvents // events Classify could not read
}

var bom = []byte{0xEF, 0xBB, 0xBF}

// Feed parses p and appends the frames of every event it completes.
func (s *SSE) Feed(dst []Frame, p []byte) ([]Frame, error) {
	if s.err != nil {
		return dst, s.err
	}
	if !s.started {
		var wait bool
		if p, wait = s.skipBOM(p); wait {
			return dst, nil
		}
	}
	// lf is the index of the next LF in p, or -1 when p has none. It is
	// found once and carried along, so CR-only input stays linear.
	lf := bytes.IndexByte(p, '\n')
	advance := func(n int) {
		p = p[n:]
		if lf >= 0 {
			if lf -= n; lf < 0 {
				lf = bytes.IndexByte(p, '\n')
			}
		}
	}
	for len(p) > 0 {
		if s.skipLF {
			s.skipLF = false
			if p[0] == '\n' {
				s.blockLen++
				advance(1)
				continue
			}
		}
		i := lineEnd(p, lf)
		if i < 0 {
			if len(s.line)+len(p)+s.dataLen() > s.limit() {
				return dst, s.fail()
			}
			// A line that straddles reads is carried over. That is the one
			// extra copy of its bytes, and only then.
			s.line = append(s.line, p...)
			break
		}
		// Check before joining a held partial line, so one large read can
		// never grow the buffer past the limit.
		if len(s.line)+i+s.dataLen() > s.limit() {
			return dst, s.fail()
		}
		ln, held := s.endLine(p, i)
		advance(i + 1)
		dst = s.processLine(dst, ln, held)
		s.line = s.line[:0]
	}
	s.ownData() // the next read may reuse p's buffer
	return dst, nil
}

// endLine is the line p ends at p[i] (CR or LF), joined to the partial
// line held from earlier reads if any (held), counted in the block. A CR
// marks a following LF as its own.
func (s *SSE) endLine(p []byte, i int) (ln []byte, held bool) {
	ln, held = p[:i], len(s.line) > 0
	if held {
		s.line = append(s.line, ln...)
		ln = s.line
	}
	s.blockLen += len(ln) + 1
	if p[i] == '\r' {
		s.skipLF = true
	}
	return ln, held
}

// dataLen is the length of the block's data so far.
func (s *SSE) dataLen() int { return len(s.inPlace) + len(s.data) - s.dataOff }

// ownData copies data framed in place into s.data, for a block that goes
// on past the read or has a second data line.
func (s *SSE) ownData() {
	if s.inPlace != nil {
		s.data, s.dataOff = append(s.data[:0], s.inPlace...), 0
		s.inPlace = nil
	}
}

// addData adds a data line's value to the block. The first stays where it
// is, in the read or, when it straddled reads (held), in s.line, which
// becomes s.data. Later ones join it in s.data, with an LF between as
// WHATWG says.
func (s *SSE) addData(value []byte, held bool) {
	switch {
	case s.hasData:
		s.ownData()
		s.data = append(append(s.data, '\n'), value...)
	case held: // value is the end of s.line
		s.data, s.line = s.line, s.data[:0]
		s.dataOff = len(s.data) - len(value)
	default:
		s.inPlace = value
	}
	s.hasData = true
}

// skipBOM strips one leading BOM (WHATWG), which may arrive split over
// reads. wait is true while all input so far could be the start of one.
func (s *SSE) skipBOM(p []byte) (rest []byte, wait bool) {
	if len(s.line) > 0 {
		p = append(s.line, p...)
		s.line = nil
	}
	if len(p) < len(bom) && bytes.HasPrefix(bom, p) {
		s.line = append(s.line, p...)
		return nil, true
	}
	s.started = true
	if bytes.HasPrefix(p, bom) {
		s.blockLen += len(bom)
		p = p[len(bom):]
	}
	return p, false
}

// lineEnd returns the index of the CR or LF that ends p's first line, or
// -1 when p holds no line end. lf is the index of p's first LF, or -1.
// The line ends at the first CR before the LF, else at the LF.
func lineEnd(p []byte, lf int) int {
	if lf < 0 {
		return bytes.IndexByte(p, '\r')
	}
	if j := bytes.IndexByte(p[:lf], '\r'); j >= 0 {
		return j
	}
	return lf
}

// Close ends the stream. WHATWG discards an event not ended by a blank
// line, and drip reports it as ErrTruncated rather than dropping it
// silently.
// An event Classify could not read is reported first (ErrUndecodable).
func (s *SSE) Close(dst []Frame) ([]Frame, error) {
	if s.err != nil {
		return dst, s.err
	}
	if err := s.bad.err(); err != nil {
		return dst, err
	}
	if len(s.line) > 0 || s.hasData {
		return dst, ErrTruncated
	}
	return dst, nil
}

func (s *SSE) limit() int {
	if s.Limit > 0 {
		return s.Limit
	}
	return DefaultFrameLimit
}

func (s *SSE) fail() error {
	s.err = fmt.Errorf("sse: %w (limit %d bytes)", ErrFrameTooLarge, s.limit())
	return s.err
}

// processLine takes one line. held says it lies in s.line, not the read.
func (s *SSE) processLine(dst []Frame, ln []byte, held bool) []Frame {
	if len(ln) == 0 {
		return s.dispatch(dst)
	}
	if ln[0] == ':' {
		s.hasFields = true
		return dst
	}
	name, value := ln, []byte(nil)
	if i := bytes.IndexByte(ln, ':'); i >= 0 {
		name, value = ln[:i], ln[i+1:]
		if len(value) > 0 && value[0] == ' ' {
			value = value[1:] // exactly one space is removed
		}
	}
	switch string(name) {
	case "data":
		s.addData(value, held)
	case "event":
		s.typ = append(s.typ[:0], value...)
		s.hasFields = true
	default: // id, retry and unknown fields carry nothing drip times
		s.hasFields = true
	}
	return dst
}

func (s *SSE) dispatch(dst []Frame) []Frame {
	ev := &s.ev
	*ev = Event{Bytes: s.blockLen}
	switch {
	case s.hasData:
		ev.Type, ev.Data = s.typ, s.data[s.dataOff:]
		if s.inPlace != nil {
			ev.Data = s.inPlace
		}
	case s.hasFields:
		ev.Keepalive = true
	default: // a stray blank line, whose bytes join the next block
		return dst
	}
	s.bad.events++
	dst = s.Classify(dst, ev)
	s.data, s.dataOff, s.inPlace, s.typ = s.data[:0], 0, nil, s.typ[:0]
	s.hasData, s.hasFields, s.blockLen = false, false, 0
	return dst
}
