package views

import (
	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// Phase is where a stream is in its life, as the header shows it.
type Phase uint8

// Phases of a stream.
const (
	PhaseIdle       Phase = iota // nothing started yet
	PhaseConnecting              // request sent, no headers
	PhaseWaiting                 // headers, no content yet
	PhaseStreaming               // content arriving
	PhaseDone                    // the record is final (complete, failed, …)
)

// Stream is an immutable snapshot of one stream. Record holds the frames so
// far; its derived fields come from stats.Derive (final once PhaseDone).
type Stream struct {
	Run       int // 1-based
	Phase     Phase
	ElapsedMS float64 // live clock: ms since the request was sent
	Record    *record.Record
	// Hops is the stream beside a relay's record of it (drip view
	// --relay): its stalls' owners; nil without one.
	Hops *hops.Stream
}

// endMS is the right edge of the stream on a time axis.
func (s *Stream) endMS() float64 {
	if s.Phase == PhaseDone {
		return s.Record.DurationMS
	}
	end := s.ElapsedMS
	if n := len(s.Record.Frames); n > 0 {
		end = max(end, s.Record.Frames[n-1].TMS)
	}
	return end
}
