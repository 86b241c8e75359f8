package adapters

import (
	"bytes"
	"encoding/json"
)

// OpenAI Responses API streaming (FORMATS §3): named SSE events whose data
// carries the same "type". Text, reasoning and function-call argument
// deltas are content; response.completed and response.incomplete end the
// stream with usage.output_tokens; `error` events and response.failed are
// errors. There is no [DONE].

func init() {
	Register(&Format{
		Name:  "openai-responses",
		Path:  "/v1/responses",
		Paths: []string{"/responses"},
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(struct {
				Model           string `json:"model,omitempty"`
				Input           string `json:"input"`
				Stream          bool   `json:"stream"`
				MaxOutputTokens int    `json:"max_output_tokens,omitempty"`
			}{r.Model, r.Prompt, true, r.MaxTokens})
		},
		Auth:       bearerAuth("OPENAI_API_KEY"),
		NewDecoder: func(limit int) Decoder { return NewResponsesDecoder(limit) },
	})
}

// NewResponsesDecoder decodes an OpenAI Responses stream.
func NewResponsesDecoder(limit int) *SSE {
	return &SSE{Classify: classifyResponses, Limit: limit}
}

// responsesEvent is the part of an event the classifier reads.
type responsesEvent struct {
	Type     string          `json:"type"`
	Delta    string          `json:"delta"`
	Error    json.RawMessage `json:"error"`
	Response *struct {
		Usage *struct {
			OutputTokens int      `json:"output_tokens"`
			InputTokens  *float64 `json:"input_tokens"`
		} `json:"usage"`
		Error json.RawMessage `json:"error"`
	} `json:"response"`
}

// responsesContent maps delta event types to the channel they carry.
var responsesContent = map[string]Channel{
	"response.output_text.delta":             ChannelText,
	"response.refusal.delta":                 ChannelText,
	"response.reasoning_summary_text.delta":  ChannelReasoning,
	"response.reasoning_text.delta":          ChannelReasoning,
	"response.function_call_arguments.delta": ChannelTool,
	"response.custom_tool_call_input.delta":  ChannelTool,
}

func classifyResponses(dst []Frame, ev *Event) []Frame {
	f := Frame{Kind: KindMeta, Bytes: ev.Bytes}
	if ev.Keepalive {
		f.Kind = KindPing
		return append(dst, f)
	}
	var e responsesEvent
	if json.Unmarshal(ev.Data, &e) != nil {
		if string(ev.Type) == "error" {
			f.Kind, f.Text = KindError, string(ev.Data)
		}
		return append(dst, f) // not JSON: metadata, never a crash
	}
	typ := e.Type
	if len(ev.Type) > 0 && !bytes.Equal(ev.Type, []byte("message")) {
		typ = string(ev.Type) // the event field names the event when given
	}
	if ch, ok := responsesContent[typ]; ok {
		if e.Delta != "" {
			f.Kind, f.Channel, f.Text = KindContent, ch, e.Delta
		} else {
			f.Kind = KindRole
		}
		return append(dst, f)
	}
	switch typ {
	case "error":
		f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
	case "response.failed":
		// A failed response is not a clean end, whatever its lifecycle says.
		f.Kind, f.Text = KindError, "response failed"
		if e.Response != nil && len(e.Response.Error) > 0 && string(e.Response.Error) != "null" {
			f.Text = ErrorMessage([]byte(`{"error":` + string(e.Response.Error) + `}`))
		}
	case "response.completed", "response.incomplete":
		f.Kind = KindEnd
	case "response.created":
		f.Kind = KindRole
	}
	if e.Response != nil && e.Response.Usage != nil {
		f.HasUsage, f.OutputTokens = true, e.Response.Usage.OutputTokens
		f.Server = serverValues(f.Server, "input_tokens", e.Response.Usage.InputTokens)
	}
	return append(dst, f)
}
