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
	c := &responsesClassifier{}
	s := &SSE{Classify: c.classify, Limit: limit}
	c.bad = &s.bad
	return s
}

// responsesEvent is the part of an event the classifier reads.
// encoding/json decodes into it when the fast path declines a payload.
type responsesEvent struct {
	Type     string          `json:"type"`
	Delta    string          `json:"delta"`
	Error    json.RawMessage `json:"error"`
	Response *struct {
		Usage *struct {
			OutputTokens tokenCount `json:"output_tokens"`
			InputTokens  number     `json:"input_tokens"`
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

// responsesInfo is what one event says, whichever parser read it; its
// buffers are reused from event to event.
type responsesInfo struct {
	typ     []byte
	delta   textPiece
	usage   bool // response.usage is an object
	tokens  int  // response.usage.output_tokens
	input   *float64
	respErr json.RawMessage // response.error as written (slow path only)
}

func (r *responsesInfo) reset() {
	*r = responsesInfo{typ: r.typ[:0]}
}

func (r *responsesInfo) parseSlow(data []byte) bool {
	var e responsesEvent
	if json.Unmarshal(data, &e) != nil {
		return false
	}
	r.typ = append(r.typ, e.Type...)
	r.delta = pieceOf(e.Delta)
	if e.Response != nil {
		r.respErr = e.Response.Error
		if u := e.Response.Usage; u != nil && !u.OutputTokens.odd { // an odd count is none: the end stays
			r.usage, r.tokens, r.input = true, u.OutputTokens.n, u.InputTokens.v
		}
	}
	return true
}

// parseFast reads the delta events with the shared fast parser
// (fastjson.go), declining any "response" object (lifecycle events, rare).
func (r *responsesInfo) parseFast(data []byte) bool {
	p := fastParser{d: data}
	return p.wholeObject(func(key []byte) (uint8, bool) {
		switch string(key) {
		case "type":
			return p.appendTo(&r.typ, 1)
		case "delta":
			return p.set(&r.delta, 2)
		case "error":
			return 4, p.skip(0) // read by ErrorMessage on error events
		}
		return 0, !foldsTo(key, "type", "delta", "error", "response") && p.skip(0)
	})
}

// responsesClassifier classifies events, reusing its parse buffers.
type responsesClassifier struct {
	r   responsesInfo
	bad *badEvents
}

func (c *responsesClassifier) classify(dst []Frame, ev *Event) []Frame {
	f := Frame{Kind: KindMeta, Bytes: ev.Bytes}
	if ev.Keepalive {
		f.Kind = KindPing
		return append(dst, f)
	}
	e := &c.r
	if !parseEither(e, ev.Data) {
		if string(ev.Type) == "error" {
			f.Kind, f.Text = KindError, string(ev.Data)
			return append(dst, f)
		}
		return append(dst, c.bad.frame(ev.Data, ev.Bytes)) // kept, and the stream fails decode
	}
	typ := e.typ
	if len(ev.Type) > 0 && !bytes.Equal(ev.Type, []byte("message")) {
		typ = ev.Type // the event field names the event when given
	}
	if ch, ok := responsesContent[string(typ)]; ok {
		if len(e.delta.raw) > 0 {
			f.Kind, f.Channel, f.Text = KindContent, ch, e.delta.String()
		} else {
			f.Kind = KindRole
		}
		return append(dst, f)
	}
	switch string(typ) {
	case "error":
		f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
	case "response.failed":
		// A failed response is not a clean end, whatever its lifecycle says.
		f.Kind, f.Text = KindError, "response failed"
		if len(e.respErr) > 0 && string(e.respErr) != "null" {
			f.Text = ErrorMessage([]byte(`{"error":` + string(e.respErr) + `}`))
		}
	case "response.completed", "response.incomplete":
		f.Kind = KindEnd
	case "response.created":
		f.Kind = KindRole
	}
	if e.usage {
		f.HasUsage, f.OutputTokens = true, e.tokens
		f.Server = serverValues(f.Server, "input_tokens", e.input)
	}
	return append(dst, f)
}
