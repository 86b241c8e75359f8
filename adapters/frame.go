package adapters

import (
	"encoding/json"
	"errors"

	"github.com/driplab/drip/record"
)

// The frame kinds and channels are the record format's (package record);
// the decoders name them here.
type (
	Kind    = record.Kind
	Channel = record.Channel
)

const (
	KindRaw     = record.KindRaw
	KindContent = record.KindContent
	KindRole    = record.KindRole
	KindPing    = record.KindPing
	KindUsage   = record.KindUsage
	KindMeta    = record.KindMeta
	KindEnd     = record.KindEnd
	KindError   = record.KindError

	ChannelText      = record.ChannelText
	ChannelReasoning = record.ChannelReasoning
	ChannelTool      = record.ChannelTool
)

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
