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
	return &SSE{Limit: limit, Classify: func(dst []Frame, ev *Event) []Frame {
		if ev.Keepalive {
			return append(dst, Frame{Kind: KindPing, Bytes: ev.Bytes})
		}
		typ := ev.Type
		if bytes.Equal(typ, []byte("message")) {
			typ = nil // the default type: let the payload's "type" decide
		}
		return append(dst, classifyAnthropic(typ, ev.Data, ev.Bytes))
	}}
}

// anthropicEvent is the part of an event the classifier reads, Bedrock's
// invocation metrics included.
type anthropicEvent struct {
	Type  string `json:"type"`
	Delta struct {
		Type        string `json:"type"`
		Text        string `json:"text"`
		Thinking    string `json:"thinking"`
		PartialJSON string `json:"partial_json"`
	} `json:"delta"`
	Usage *struct {
		OutputTokens *int `json:"output_tokens"`
	} `json:"usage"`
	Message *struct {
		Usage *struct {
			InputTokens *float64 `json:"input_tokens"`
		} `json:"usage"`
	} `json:"message"` // message_start
	Metrics *struct {
		InputTokenCount   *float64 `json:"inputTokenCount"`
		OutputTokenCount  *int     `json:"outputTokenCount"`
		InvocationLatency *float64 `json:"invocationLatency"`
		FirstByteLatency  *float64 `json:"firstByteLatency"`
	} `json:"amazon-bedrock-invocationMetrics"`
}

// classifyAnthropic classifies one event; typ is the SSE event name, or nil
// to go by the payload's "type".
func classifyAnthropic(typ, data []byte, n int) Frame {
	f := Frame{Kind: KindMeta, Bytes: n}
	var e anthropicEvent
	if json.Unmarshal(data, &e) != nil {
		if string(typ) == "error" {
			f.Kind, f.Text = KindError, string(data)
		}
		return f // not JSON: metadata, never a crash
	}
	t := e.Type
	if len(typ) > 0 {
		t = string(typ)
	}
	switch t {
	case "ping":
		f.Kind = KindPing
	case "message_start":
		// Its usage.output_tokens is a placeholder (1), not a count; its
		// input_tokens is the prompt's.
		f.Kind = KindRole
		if m := e.Message; m != nil && m.Usage != nil {
			f.Server = serverValues(f.Server, "input_tokens", m.Usage.InputTokens)
		}
	case "content_block_delta":
		d := &e.Delta
		f.Kind = KindRole // an empty delta carries nothing
		switch {
		case d.Type == "text_delta" && d.Text != "":
			f.Kind, f.Channel, f.Text = KindContent, ChannelText, d.Text
		case d.Type == "thinking_delta" && d.Thinking != "":
			f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, d.Thinking
		case d.Type == "input_json_delta" && d.PartialJSON != "":
			f.Kind, f.Channel, f.Text = KindContent, ChannelTool, d.PartialJSON
		case d.Type == "signature_delta":
			f.Kind = KindMeta // a verification token, not reasoning text
		}
	case "message_delta":
		f.Kind = KindUsage
	case "message_stop":
		f.Kind = KindEnd
	case "error":
		f.Kind, f.Text = KindError, ErrorMessage(data)
	}
	if e.Usage != nil && e.Usage.OutputTokens != nil && t != "message_start" {
		f.HasUsage, f.OutputTokens = true, *e.Usage.OutputTokens
	}
	if m := e.Metrics; m != nil {
		if m.OutputTokenCount != nil {
			f.HasUsage, f.OutputTokens = true, *m.OutputTokenCount
		}
		f.Server = serverValues(f.Server,
			"invocation_latency_ms", m.InvocationLatency,
			"first_byte_latency_ms", m.FirstByteLatency,
			"input_tokens", m.InputTokenCount)
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
