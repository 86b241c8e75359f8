// Package adapters turns the bytes of a streamed LLM response into classified
// frames. Decoders are push-style and pure: they never read a clock and never
// do I/O, so the same code decodes live HTTP, files and fuzz input. The probe
// stamps every frame with the time of the read that completed it.
package adapters

import (
	"encoding/json"
	"errors"
)

// Kind says what a frame is, as decided by the protocol adapter.
type Kind uint8

const (
	KindRaw     Kind = iota // a read no adapter claimed (generic raw mode)
	KindContent             // output text, reasoning text or tool-call arguments
	KindRole                // role-only or empty delta
	KindPing                // keepalive, SSE comment
	KindUsage               // token-count report
	KindMeta                // other metadata
	KindEnd                 // the format's end marker
	KindError               // an in-stream error event
)

var kindNames = [...]string{"raw", "content", "role", "ping", "usage", "meta", "end", "error"}

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// MarshalText writes the kind's name, as records store it.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return errors.New("unknown frame kind " + string(b))
}

// Channel says which stream of output a content frame belongs to.
type Channel uint8

const (
	ChannelText      Channel = iota // answer text
	ChannelReasoning                // reasoning / thinking text
	ChannelTool                     // tool-call arguments
)

var channelNames = [...]string{"text", "reasoning", "tool"}

func (c Channel) String() string {
	if int(c) < len(channelNames) {
		return channelNames[c]
	}
	return "unknown"
}

// MarshalText writes the channel's name.
func (c Channel) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a channel's name.
func (c *Channel) UnmarshalText(b []byte) error {
	for i, n := range channelNames {
		if n == string(b) {
			*c = Channel(i)
			return nil
		}
	}
	return errors.New("unknown channel " + string(b))
}

// Frame is one decoded unit of a stream: an SSE event, an NDJSON line, an
// event-stream message or, in raw mode, one read.
type Frame struct {
	Kind    Kind
	Channel Channel // for content frames
	Text    string  // content text, or the error message of an error frame
	Bytes   int     // wire bytes of the frame, framing included
	// Tokens is how many output tokens this frame carried, when the format
	// says so (vLLM continuous usage, Bedrock per-chunk counts); 0 = unknown.
	Tokens int
	// OutputTokens is a usage report of output tokens so far (cumulative);
	// 0 with HasUsage false means none. The last report wins.
	OutputTokens int
	HasUsage     bool
	// Server holds server-side timings or metadata the frame carried
	// (Ollama durations, Bedrock latencyMs); kept apart from client times.
	Server map[string]json.RawMessage
}

// Decoder is a push decoder for one stream. Feed appends the frames completed
// by p to dst and returns it; Close reports frames still pending at EOF and
// ErrTruncated when the stream ended inside a frame.
type Decoder interface {
	Feed(dst []Frame, p []byte) ([]Frame, error)
	Close(dst []Frame) ([]Frame, error)
}

// ErrTruncated reports a stream that ended in the middle of a frame; the
// partial frame is not dispatched.
var ErrTruncated = errors.New("stream ended inside a frame")

// ErrFrameTooLarge reports a frame longer than the decoder's limit.
var ErrFrameTooLarge = errors.New("frame too large")

// DefaultFrameLimit bounds one frame's size (16 MiB, as A2A and others use).
const DefaultFrameLimit = 16 << 20
