package adapters

import (
	"bytes"
	"fmt"
)

// Event is one dispatched SSE event (WHATWG HTML §9.2.6), or a data-less
// block (comments, retry or id only) that the spec would not dispatch but a
// timestamper reports as a keepalive.
type Event struct {
	Type []byte // the event field; empty means "message"
	Data []byte // data lines joined with LF; valid only during the callback
	// Keepalive marks a block without data: comments, retry, id or event only.
	Keepalive bool
	// Bytes is the block's wire bytes, blank line included, counting any
	// stray blank lines before it and a leading BOM. The LF of a CRLF that
	// ends the block is counted with the next block (the CR already ended
	// it), so counts do not depend on how the input was split into reads.
	Bytes int
}

// SSE is a WHATWG-conformant push parser for text/event-stream. It does not
// interpret event payloads; Classify turns each event into frames.
type SSE struct {
	Classify func(dst []Frame, ev *Event) []Frame
	Limit    int // largest event in bytes; 0 means DefaultFrameLimit

	line      []byte // a line not yet ended by CR, LF or CRLF
	data      []byte
	typ       []byte
	hasData   bool
	hasFields bool // the block had a comment or a non-data field
	blockLen  int
	skipLF    bool // the previous read ended with CR: a leading LF belongs to it
	started   bool // past the optional leading BOM
	err       error
	ev        Event // handed to Classify; kept here so it does not escape per event
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
	// lf is the index of the next LF in p, or -1 when p has none; it is
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
			if len(s.line)+len(p)+len(s.data) > s.limit() {
				return dst, s.fail()
			}
			s.line = append(s.line, p...)
			return dst, nil
		}
		// Check before joining a held partial line, so one large read can
		// never grow the buffer past the limit.
		if len(s.line)+i+len(s.data) > s.limit() {
			return dst, s.fail()
		}
		var ln []byte
		if len(s.line) > 0 {
			s.line = append(s.line, p[:i]...)
			ln = s.line
		} else {
			ln = p[:i]
		}
		s.blockLen += len(ln) + 1
		if p[i] == '\r' {
			s.skipLF = true
		}
		advance(i + 1)
		dst = s.processLine(dst, ln)
		s.line = s.line[:0]
	}
	return dst, nil
}

// skipBOM strips one leading BOM (WHATWG), which may arrive split over
// reads: wait is true while all input so far could be the start of one.
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
// -1 when p holds no line end; lf is the index of p's first LF (-1: none).
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

// Close ends the stream. WHATWG: an event not ended by a blank line is
// discarded; drip reports it as ErrTruncated rather than dropping it silently.
func (s *SSE) Close(dst []Frame) ([]Frame, error) {
	if s.err != nil {
		return dst, s.err
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

func (s *SSE) processLine(dst []Frame, ln []byte) []Frame {
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
		if s.hasData {
			s.data = append(s.data, '\n')
		}
		s.data = append(s.data, value...)
		s.hasData = true
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
		ev.Type, ev.Data = s.typ, s.data
	case s.hasFields:
		ev.Keepalive = true
	default: // a stray blank line: its bytes join the next block
		return dst
	}
	dst = s.Classify(dst, ev)
	s.data, s.typ = s.data[:0], s.typ[:0]
	s.hasData, s.hasFields, s.blockLen = false, false, 0
	return dst
}
