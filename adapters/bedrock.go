package adapters

import (
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"
)

// Amazon Bedrock streams (FORMATS §6) over the AWS binary event stream.
// converse-stream sends one JSON event per message, named by :event-type.
// invoke-with-response-stream sends `chunk` events whose base64 "bytes" are
// the model's own events (Anthropic Messages for Claude). Exceptions are
// messages with :message-type exception or error.

func init() {
	Register(&Format{
		Name:  "bedrock-converse",
		Path:  "/model/{model}/converse-stream",
		Paths: []string{"/converse-stream"},
		Body: func(r Request) ([]byte, error) {
			return userTurnBody(r, "messages", "content", "inferenceConfig", "maxTokens")
		},
		NewDecoder: func(limit int) Decoder { return NewBedrockConverseDecoder(limit) },
	})
	Register(&Format{
		Name:  "bedrock-invoke",
		Path:  "/model/{model}/invoke-with-response-stream",
		Paths: []string{"/invoke-with-response-stream"},
		// The body is the model's own. drip speaks Anthropic's, as Claude
		// on Bedrock takes it. Other models need --body.
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(struct {
				AnthropicVersion string          `json:"anthropic_version"`
				MaxTokens        int             `json:"max_tokens"`
				Messages         []openAIMessage `json:"messages"`
			}{"bedrock-2023-05-31", anthropicMaxTokens(r.MaxTokens), []openAIMessage{{Role: "user", Content: r.Prompt}}})
		},
		NewDecoder: func(limit int) Decoder { return NewBedrockInvokeDecoder(limit) },
	})
}

// exceptionFrame turns an exception or error message into an error frame.
// ok is false for ordinary events.
func exceptionFrame(m *EventMessage, n int) (Frame, bool) {
	switch string(m.MessageType) {
	case "exception":
		msg := ErrorMessage(m.Payload)
		if len(m.ExceptionType) > 0 {
			msg = string(m.ExceptionType) + ": " + msg
		}
		return Frame{Kind: KindError, Text: msg, Bytes: n}, true
	case "error":
		return Frame{Kind: KindError, Text: string(m.ErrorCode) + ": " + string(m.ErrorMessage), Bytes: n}, true
	}
	return Frame{}, false
}

// NewBedrockConverseDecoder decodes a ConverseStream event stream.
func NewBedrockConverseDecoder(limit int) *EventStream {
	c := &converseClassifier{}
	d := NewBedrockDecoder(limit, c.classify)
	c.bad = &d.bad
	return d
}

// converseEvent is the part of a ConverseStream event the classifier
// reads. encoding/json decodes into it when the fast path declines.
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
	Usage   *converseUsage `json:"usage"`
	Metrics *struct {
		LatencyMS number `json:"latencyMs"`
	} `json:"metrics"`
}

type converseUsage struct {
	InputTokens  number     `json:"inputTokens"`
	OutputTokens tokenCount `json:"outputTokens"`
}

// converseInfo is what one event says, whichever parser read it. Its
// buffers are reused from event to event.
type converseInfo struct {
	text, reasoning, tool textPiece
	usage                 *converseUsage // metadata (slow path only)
	latency               *float64       // metadata metrics.latencyMs (slow path only)
}

func (c *converseInfo) reset() {
	*c = converseInfo{}
}

func (c *converseInfo) parseSlow(data []byte) bool {
	var e converseEvent
	if json.Unmarshal(data, &e) != nil {
		return false
	}
	if d := e.Delta; d != nil {
		c.text = pieceOf(d.Text)
		if d.ReasoningContent != nil {
			c.reasoning = pieceOf(d.ReasoningContent.Text)
		}
		if d.ToolUse != nil {
			c.tool = pieceOf(d.ToolUse.Input)
		}
	}
	c.usage = e.Usage
	if e.Metrics != nil {
		c.latency = e.Metrics.LatencyMS.v
	}
	return true
}

// parseFast reads the delta events, declining usage and metrics (the one
// metadata event at the end).
func (c *converseInfo) parseFast(data []byte) bool {
	p := fastParser{d: data}
	return p.wholeObject(func(key []byte) (uint8, bool) {
		if string(key) != "delta" {
			return 0, !foldsTo(key, "delta", "usage", "metrics") && p.skip(0)
		}
		return 1, p.object(func(key []byte) (uint8, bool) {
			switch string(key) {
			case "text":
				return p.set(&c.text, 1)
			case "reasoningContent":
				return 2, p.object(func(key []byte) (uint8, bool) {
					return p.textMember(key, "text", &c.reasoning)
				})
			case "toolUse":
				return 4, p.object(func(key []byte) (uint8, bool) {
					return p.textMember(key, "input", &c.tool)
				})
			}
			return 0, !foldsTo(key, "text", "reasoningContent", "toolUse") && p.skip(0)
		})
	})
}

type converseClassifier struct {
	e   converseInfo
	bad *badEvents
}

func (c *converseClassifier) classify(dst []Frame, m *EventMessage, n int) []Frame {
	if f, ok := exceptionFrame(m, n); ok {
		return append(dst, f)
	}
	f := Frame{Kind: KindMeta, Bytes: n}
	e := &c.e
	if !parseEither(e, m.Payload) {
		return append(dst, c.bad.frame(m.Payload, n)) // kept, and the stream fails decode
	}
	switch string(m.EventType) {
	case "messageStart":
		f.Kind = KindRole
	case "contentBlockDelta":
		f.Kind = KindRole // empty, a signature, redacted reasoning or padding
		switch {
		case len(e.text.raw) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelText, e.text.String()
		case len(e.tool.raw) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelTool, e.tool.String()
		case len(e.reasoning.raw) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, e.reasoning.String()
		}
	case "messageStop":
		f.Kind = KindEnd
	case "metadata":
		f.Kind = KindUsage
		if e.usage != nil {
			if !e.usage.OutputTokens.odd { // an odd count is none
				f.HasUsage, f.OutputTokens = true, e.usage.OutputTokens.n
			}
			f.Server = serverValues(f.Server, "input_tokens", e.usage.InputTokens.v)
		}
		f.Server = serverValues(f.Server, "latency_ms", e.latency)
	}
	return append(dst, f)
}

// NewBedrockInvokeDecoder decodes an InvokeModelWithResponseStream event
// stream of Anthropic events, with one Anthropic classifier per stream.
func NewBedrockInvokeDecoder(limit int) *EventStream {
	c := &invokeClassifier{}
	d := NewBedrockDecoder(limit, c.classify)
	c.anthropic.bad = &d.bad
	return d
}

// invokeInfo is a chunk's "bytes", base64-decoded into a reused buffer. It
// holds the Anthropic event inside, whose text then makes the record's string.
type invokeInfo struct {
	bytes   []byte
	scratch []byte // the fast path's unquoted base64 text, for escapes only
}

func (c *invokeInfo) reset() { c.bytes, c.scratch = c.bytes[:0], c.scratch[:0] }

func (c *invokeInfo) parseSlow(data []byte) bool {
	var e struct {
		Bytes []byte `json:"bytes"` // base64 in JSON
	}
	if json.Unmarshal(data, &e) != nil {
		return false
	}
	c.bytes = append(c.bytes, e.Bytes...)
	return true
}

// parseFast decodes "bytes" as encoding/json does a []byte field
// (base64.StdEncoding, which skips CR and LF), declining text that is not
// base64. The base64 is decoded where it lies in the payload. Only a
// string with escapes is unquoted into scratch first.
func (c *invokeInfo) parseFast(data []byte) bool {
	p := fastParser{d: data}
	return p.wholeObject(func(key []byte) (uint8, bool) {
		if string(key) != "bytes" {
			return 0, !foldsTo(key, "bytes") && p.skip(0)
		}
		if p.null() {
			return 1, true
		}
		start := p.i
		b64, escaped, ok := p.scanString()
		if !ok {
			return 1, false
		}
		if escaped { // rare, so unquote it, passing over it again
			p.i = start
			c.scratch, _ = p.appendString(c.scratch[:0])
			b64 = c.scratch
		}
		c.bytes = slices.Grow(c.bytes[:0], base64.StdEncoding.DecodedLen(len(b64)))
		n, err := base64.StdEncoding.Decode(c.bytes[:cap(c.bytes)], b64)
		c.bytes = c.bytes[:n]
		return 1, err == nil
	})
}

type invokeClassifier struct {
	e         invokeInfo
	anthropic anthropicClassifier
}

func (c *invokeClassifier) classify(dst []Frame, m *EventMessage, n int) []Frame {
	if f, ok := exceptionFrame(m, n); ok {
		return append(dst, f)
	}
	if string(m.EventType) != "chunk" {
		return append(dst, Frame{Kind: KindMeta, Bytes: n})
	}
	if !parseEither(&c.e, m.Payload) {
		return append(dst, c.anthropic.bad.frame(m.Payload, n)) // kept, and the stream fails decode
	}
	return append(dst, c.anthropic.classify(nil, c.e.bytes, n))
}

// userTurnBody is the request body Bedrock's Converse and Gemini share in
// shape, under their own names. It holds one user turn whose parts are a single text
// part, in list, and the output limit as max inside config when one is set.
// The prompt is escaped as encoding/json escapes it.
func userTurnBody(r Request, list, parts, config, max string) ([]byte, error) {
	text, err := json.Marshal(r.Prompt)
	if err != nil {
		return nil, err
	}
	b := fmt.Appendf(nil, `{%q:[{"role":"user",%q:[{"text":%s}]}]`, list, parts, text)
	if r.MaxTokens > 0 {
		b = fmt.Appendf(b, `,%q:{%q:%d}`, config, max, r.MaxTokens)
	}
	return append(b, '}'), nil
}
