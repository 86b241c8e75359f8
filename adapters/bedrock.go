package adapters

import (
	"bytes"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"hash/crc32"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// Amazon Bedrock streaming (FORMATS §6): the AWS binary event stream.
// converse-stream sends one JSON event per message, named by :event-type;
// invoke-with-response-stream sends `chunk` events whose base64 "bytes" are
// the model's own events (Anthropic Messages for Claude). Exceptions are
// messages with :message-type exception or error.

func init() {
	Register(&Format{
		Name:  "bedrock-converse",
		Path:  "/model/{model}/converse-stream",
		Paths: []string{"/converse-stream"},
		Body: func(r Request) ([]byte, error) {
			type text struct {
				Text string `json:"text"`
			}
			type message struct {
				Role    string `json:"role"`
				Content []text `json:"content"`
			}
			type inference struct {
				MaxTokens int `json:"maxTokens,omitempty"`
			}
			return json.Marshal(struct {
				Messages        []message  `json:"messages"`
				InferenceConfig *inference `json:"inferenceConfig,omitempty"`
			}{
				Messages: []message{{Role: "user", Content: []text{{r.Prompt}}}},
				InferenceConfig: func() *inference {
					if r.MaxTokens > 0 {
						return &inference{r.MaxTokens}
					}
					return nil
				}(),
			})
		},
		NewDecoder: func(limit int) Decoder { return NewBedrockDecoder(limit, classifyConverse) },
	})
	Register(&Format{
		Name:  "bedrock-invoke",
		Path:  "/model/{model}/invoke-with-response-stream",
		Paths: []string{"/invoke-with-response-stream"},
		// The body is the model's own; drip speaks Anthropic's, as Claude
		// on Bedrock takes it. Other models need --body.
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(struct {
				AnthropicVersion string          `json:"anthropic_version"`
				MaxTokens        int             `json:"max_tokens"`
				Messages         []openAIMessage `json:"messages"`
			}{"bedrock-2023-05-31", anthropicMaxTokens(r.MaxTokens), []openAIMessage{{Role: "user", Content: r.Prompt}}})
		},
		NewDecoder: func(limit int) Decoder { return NewBedrockDecoder(limit, classifyInvoke) },
	})
}

// Event-stream framing limits (aws-sdk-go-v2 eventstream message.go).
const (
	esPreludeLen    = 12 // total_len, headers_len, prelude CRC
	esMinMessageLen = 16
	esMaxHeadersLen = 128 << 10
	esMaxPayloadLen = 16 << 20
)

// ErrChecksum reports an event-stream message whose CRC does not match.
var ErrChecksum = errors.New("eventstream: checksum mismatch")

// EventStream is a push decoder for the AWS binary event stream. It checks
// each prelude (lengths and CRC) as soon as its 12 bytes arrive, so a bad or
// oversized declared length fails at once and nothing is ever allocated
// from a declared length; whole messages go to the aws-sdk-go-v2 decoder,
// which checks the message CRC.
type EventStream struct {
	Classify func(dst []Frame, m *eventstream.Message, n int) []Frame
	Limit    int // largest message in bytes; 0 means DefaultFrameLimit

	buf     []byte
	dec     *eventstream.Decoder
	rd      bytes.Reader
	payload []byte
	err     error
}

// NewBedrockDecoder returns an event-stream decoder with a classifier.
func NewBedrockDecoder(limit int, classify func([]Frame, *eventstream.Message, int) []Frame) *EventStream {
	return &EventStream{Classify: classify, Limit: limit, dec: eventstream.NewDecoder()}
}

// Feed decodes p and appends the frames of every message it completes.
func (d *EventStream) Feed(dst []Frame, p []byte) ([]Frame, error) {
	if d.err != nil {
		return dst, d.err
	}
	data := p
	if len(d.buf) > 0 {
		d.buf = append(d.buf, p...)
		data = d.buf
	}
	for len(data) >= esPreludeLen {
		total, err := d.prelude(data)
		if err != nil {
			d.err = err
			return dst, err
		}
		if len(data) < total {
			break
		}
		d.rd.Reset(data[:total])
		m, err := d.dec.Decode(&d.rd, d.payload[:0])
		if err != nil {
			d.err = fmt.Errorf("eventstream: %w", err)
			return dst, d.err
		}
		d.payload = m.Payload[:0:cap(m.Payload)]
		dst = d.Classify(dst, &m, total)
		data = data[total:]
	}
	// Keep the unfinished message; copy because data may alias p or buf.
	n := copy(d.buf[:cap(d.buf)], data)
	if n < len(data) {
		d.buf = append(d.buf[:0], data...)
	} else {
		d.buf = d.buf[:n]
	}
	return dst, nil
}

// prelude validates a message's prelude and returns its total length.
func (d *EventStream) prelude(b []byte) (int, error) {
	total := binary.BigEndian.Uint32(b[0:4])
	headers := binary.BigEndian.Uint32(b[4:8])
	if crc32.ChecksumIEEE(b[:8]) != binary.BigEndian.Uint32(b[8:12]) {
		return 0, fmt.Errorf("%w in a message prelude", ErrChecksum)
	}
	limit := d.Limit
	if limit <= 0 {
		limit = DefaultFrameLimit
	}
	switch {
	case total < esMinMessageLen || headers > total-esMinMessageLen:
		return 0, fmt.Errorf("eventstream: bad lengths (total %d, headers %d)", total, headers)
	case headers > esMaxHeadersLen || total-headers-esMinMessageLen > esMaxPayloadLen || int64(total) > int64(limit):
		return 0, fmt.Errorf("eventstream: %w: message of %d bytes (limit %d)", ErrFrameTooLarge, total, limit)
	}
	return int(total), nil
}

// Close ends the stream; bytes of an unfinished message make it truncated.
func (d *EventStream) Close(dst []Frame) ([]Frame, error) {
	if d.err != nil {
		return dst, d.err
	}
	if len(d.buf) > 0 {
		return dst, ErrTruncated
	}
	return dst, nil
}

// headerString returns a string (or bytes) header's value, or "".
func headerString(m *eventstream.Message, name string) string {
	switch v := m.Headers.Get(name).(type) {
	case eventstream.StringValue:
		return string(v)
	case eventstream.BytesValue:
		return string(v)
	}
	return ""
}

// exceptionFrame turns an exception or error message into an error frame;
// ok is false for ordinary events.
func exceptionFrame(m *eventstream.Message, n int) (Frame, bool) {
	switch headerString(m, ":message-type") {
	case "exception":
		typ := headerString(m, ":exception-type")
		msg := ErrorMessage(m.Payload)
		if typ != "" {
			msg = typ + ": " + msg
		}
		return Frame{Kind: KindError, Text: msg, Bytes: n}, true
	case "error":
		return Frame{Kind: KindError, Text: headerString(m, ":error-code") + ": " + headerString(m, ":error-message"), Bytes: n}, true
	}
	return Frame{}, false
}

// converseEvent is the part of a ConverseStream event the classifier reads.
type converseEvent struct {
	Delta *struct {
		Text             string `json:"text"`
		ReasoningContent *struct {
			Text string `json:"text"`
		} `json:"reasoningContent"`
		ToolUse *struct {
			Input string `json:"input"`
		} `json:"toolUse"`
	} `json:"delta"`
	Usage *struct {
		InputTokens  *float64 `json:"inputTokens"`
		OutputTokens int      `json:"outputTokens"`
	} `json:"usage"`
	Metrics *struct {
		LatencyMS *float64 `json:"latencyMs"`
	} `json:"metrics"`
}

func classifyConverse(dst []Frame, m *eventstream.Message, n int) []Frame {
	if f, ok := exceptionFrame(m, n); ok {
		return append(dst, f)
	}
	f := Frame{Kind: KindMeta, Bytes: n}
	var e converseEvent
	if json.Unmarshal(m.Payload, &e) != nil {
		return append(dst, f)
	}
	switch headerString(m, ":event-type") {
	case "messageStart":
		f.Kind = KindRole
	case "contentBlockDelta":
		f.Kind = KindRole // empty, a signature, redacted reasoning or padding
		if d := e.Delta; d != nil {
			switch {
			case d.Text != "":
				f.Kind, f.Channel, f.Text = KindContent, ChannelText, d.Text
			case d.ToolUse != nil && d.ToolUse.Input != "":
				f.Kind, f.Channel, f.Text = KindContent, ChannelTool, d.ToolUse.Input
			case d.ReasoningContent != nil && d.ReasoningContent.Text != "":
				f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, d.ReasoningContent.Text
			}
		}
	case "messageStop":
		f.Kind = KindEnd
	case "metadata":
		f.Kind = KindUsage
		if e.Usage != nil {
			f.HasUsage, f.OutputTokens = true, e.Usage.OutputTokens
			f.Server = serverValues(f.Server, "input_tokens", e.Usage.InputTokens)
		}
		if e.Metrics != nil {
			f.Server = serverValues(f.Server, "latency_ms", e.Metrics.LatencyMS)
		}
	}
	return append(dst, f)
}

func classifyInvoke(dst []Frame, m *eventstream.Message, n int) []Frame {
	if f, ok := exceptionFrame(m, n); ok {
		return append(dst, f)
	}
	if headerString(m, ":event-type") != "chunk" {
		return append(dst, Frame{Kind: KindMeta, Bytes: n})
	}
	var c struct {
		Bytes []byte `json:"bytes"` // base64 in JSON
	}
	if json.Unmarshal(m.Payload, &c) != nil {
		return append(dst, Frame{Kind: KindMeta, Bytes: n})
	}
	return append(dst, new(anthropicClassifier).classify(nil, c.Bytes, n))
}
