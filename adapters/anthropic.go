package adapters

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// Anthropic Messages streaming (FORMATS §4): named SSE events. text_delta,
// thinking_delta and input_json_delta are content (signature_delta is not);
// `ping` is a keepalive; message_delta carries the cumulative
// usage.output_tokens; message_stop ends the stream; `event: error` (e.g.
// overloaded_error) is an in-stream error. Bedrock's invoke stream carries
// the same events, base64 inside event-stream messages.

// AnthropicVersion is the API version drip asks for unless -H gives one.
const AnthropicVersion = "2023-06-01"

// anthropicDefaultMaxTokens fills the required max_tokens when the user
// gave none.
const anthropicDefaultMaxTokens = 1024

func init() {
	Register(&Format{
		Name:  "anthropic",
		Path:  "/v1/messages",
		Paths: []string{"/messages"},
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(anthropicRequest{
				Model:     r.Model,
				Messages:  []openAIMessage{{Role: "user", Content: r.Prompt}},
				MaxTokens: anthropicMaxTokens(r.MaxTokens),
				Stream:    true,
			})
		},
		Auth: func(h http.Header, getenv func(string) string) {
			if h.Get("Anthropic-Version") == "" {
				h.Set("Anthropic-Version", AnthropicVersion)
			}
			if h.Get("X-Api-Key") != "" || h.Get("Authorization") != "" {
				return
			}
			if key := getenv("ANTHROPIC_API_KEY"); key != "" {
				h.Set("X-Api-Key", key)
			}
		},
		NewDecoder: func(limit int) Decoder { return NewAnthropicDecoder(limit) },
	})
}

type anthropicRequest struct {
	Model     string          `json:"model,omitempty"`
	Messages  []openAIMessage `json:"messages"`
	MaxTokens int             `json:"max_tokens"`
	Stream    bool            `json:"stream"`
}

func anthropicMaxTokens(n int) int {
	if n > 0 {
		return n
	}
	return anthropicDefaultMaxTokens
}

// NewAnthropicDecoder decodes an Anthropic Messages stream.
func NewAnthropicDecoder(limit int) *SSE {
	c := &anthropicClassifier{}
	s := &SSE{Limit: limit}
	c.bad = &s.bad
	s.Classify = func(dst []Frame, ev *Event) []Frame {
		if ev.Keepalive {
			return append(dst, Frame{Kind: KindPing, Bytes: ev.Bytes})
		}
		typ := ev.Type
		if bytes.Equal(typ, []byte("message")) {
			typ = nil // the default type: let the payload's "type" decide
		}
		return append(dst, c.classify(typ, ev.Data, ev.Bytes))
	}
	return s
}

// anthropicEvent is the part of an event the classifier reads, Bedrock's
// invocation metrics included. encoding/json decodes into it when the fast
// path declines a payload.
type anthropicEvent struct {
	Type  string `json:"type"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
	Usage *struct {
		OutputTokens tokenCount `json:"output_tokens"`
	} `json:"usage"`
	Message *struct {
		Usage *struct {
			InputTokens number `json:"input_tokens"`
		} `json:"usage"`
	} `json:"message"` // message_start
	Metrics *anthropicMetrics `json:"amazon-bedrock-invocationMetrics"`
}

type anthropicMetrics struct {
	InputTokenCount   number     `json:"inputTokenCount"`
	OutputTokenCount  tokenCount `json:"outputTokenCount"`
	InvocationLatency number     `json:"invocationLatency"`
	FirstByteLatency  number     `json:"firstByteLatency"`
}

// anthropicInfo is what one event says, whichever parser read it; its
// buffers are reused from event to event.
type anthropicInfo struct {
	typ, dType              []byte
	text, thinking, partial textPiece
	tokens                  int // usage.output_tokens, when hasTokens
	hasTokens               bool
	input                   *float64          // message.usage.input_tokens (slow path only)
	metrics                 *anthropicMetrics // Bedrock's (slow path only)
}

func (a *anthropicInfo) reset() {
	*a = anthropicInfo{typ: a.typ[:0], dType: a.dType[:0]}
}

func (a *anthropicInfo) parseSlow(data []byte) bool {
	var e anthropicEvent
	if json.Unmarshal(data, &e) != nil {
		return false
	}
	a.typ, a.dType = append(a.typ, e.Type...), append(a.dType, e.Delta.Type...)
	a.text, a.thinking, a.partial = pieceOf(e.Delta.Text), pieceOf(e.Delta.Thinking), pieceOf(e.Delta.PartialJSON)
	if e.Usage != nil && e.Usage.OutputTokens.known { // an odd count is none: the event stays
		a.tokens, a.hasTokens = e.Usage.OutputTokens.n, true
	}
	if m := e.Message; m != nil && m.Usage != nil {
		a.input = m.Usage.InputTokens.v
	}
	a.metrics = e.Metrics
	return true
}

// parseFast reads the common events with the shared fast parser
// (fastjson.go), declining message_start's message and Bedrock's metrics.
func (a *anthropicInfo) parseFast(data []byte) bool {
	p := fastParser{d: data}
	return p.wholeObject(func(key []byte) (uint8, bool) {
		switch string(key) {
		case "type":
			return p.appendTo(&a.typ, 1)
		case "delta":
			return 2, p.object(func(key []byte) (uint8, bool) {
				switch string(key) {
				case "type":
					return p.appendTo(&a.dType, 1)
				case "text":
					return p.set(&a.text, 2)
				case "thinking":
					return p.set(&a.thinking, 4)
				case "partial_json":
					return p.set(&a.partial, 8)
				}
				return 0, !foldsTo(key, "type", "text", "thinking", "partial_json") && p.skip(0)
			})
		case "usage":
			return 4, p.object(func(key []byte) (uint8, bool) {
				if string(key) == "output_tokens" {
					if p.null() {
						return 1, true
					}
					n, ok := p.integer()
					a.tokens, a.hasTokens = n, true
					return 1, ok
				}
				return 0, !foldsTo(key, "output_tokens") && p.skip(0)
			})
		}
		return 0, !foldsTo(key, "type", "delta", "usage", "message", "amazon-bedrock-invocationMetrics") && p.skip(0)
	})
}

// anthropicClassifier classifies events, reusing its parse buffers.
type anthropicClassifier struct {
	a   anthropicInfo
	bad *badEvents
}

// classify classifies one event; typ is the SSE event name, or nil to go
// by the payload's "type".
func (c *anthropicClassifier) classify(typ, data []byte, n int) Frame {
	f := Frame{Kind: KindMeta, Bytes: n}
	a := &c.a
	if !parseEither(a, data) {
		if string(typ) == "error" {
			f.Kind, f.Text = KindError, string(data)
			return f
		}
		return c.bad.frame(data, n) // kept, and the stream fails decode
	}
	t := a.typ
	if len(typ) > 0 {
		t = typ
	}
	switch string(t) {
	case "ping":
		f.Kind = KindPing
	case "message_start":
		// Its usage.output_tokens is a placeholder (1), not a count; its
		// input_tokens is the prompt's.
		f.Kind = KindRole
		f.Server = serverValues(f.Server, "input_tokens", a.input)
	case "content_block_delta":
		f.Kind = KindRole // an empty delta carries nothing
		switch dt := string(a.dType); {
		case dt == "text_delta" && len(a.text.raw) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelText, a.text.String()
		case dt == "thinking_delta" && len(a.thinking.raw) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, a.thinking.String()
		case dt == "input_json_delta" && len(a.partial.raw) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelTool, a.partial.String()
		case dt == "signature_delta":
			f.Kind = KindMeta // a verification token, not reasoning text
		}
	case "message_delta":
		f.Kind = KindUsage
	case "message_stop":
		f.Kind = KindEnd
	case "error":
		f.Kind, f.Text = KindError, ErrorMessage(data)
	}
	if a.hasTokens && string(t) != "message_start" {
		f.HasUsage, f.OutputTokens = true, a.tokens
	}
	if m := a.metrics; m != nil {
		if m.OutputTokenCount.known {
			f.HasUsage, f.OutputTokens = true, m.OutputTokenCount.n
		}
		f.Server = serverValues(f.Server,
			"invocation_latency_ms", m.InvocationLatency.v,
			"first_byte_latency_ms", m.FirstByteLatency.v,
			"input_tokens", m.InputTokenCount.v)
	}
	return f
}

// serverValues adds the non-nil numbers of name/value pairs to a frame's
// server map.
func serverValues(m map[string]json.RawMessage, kv ...any) map[string]json.RawMessage {
	for i := 0; i+1 < len(kv); i += 2 {
		v, ok := kv[i+1].(*float64)
		if !ok || v == nil {
			continue
		}
		if m == nil {
			m = map[string]json.RawMessage{}
		}
		m[kv[i].(string)] = strconv.AppendFloat(nil, *v, 'g', -1, 64)
	}
	return m
}
