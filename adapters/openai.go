package adapters

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
)

// OpenAI Chat Completions streaming (FORMATS §2) is SSE with one JSON chunk per
// event, `data: [DONE]` at the end, usage on a final chunk with `choices: []`
// when stream_options.include_usage is set.

func init() {
	Register(&Format{
		Name:       "openai-chat",
		Path:       "/v1/chat/completions",
		Paths:      []string{"/chat/completions"},
		Body:       openAIChatBody,
		Auth:       bearerAuth("OPENAI_API_KEY"),
		NewDecoder: func(limit int) Decoder { return NewOpenAIDecoder(limit) },
	})
}

type openAIMessage struct {
	Role    string `json:"role"`
	Content string `json:"content"`
}

type openAIStreamOptions struct {
	IncludeUsage bool `json:"include_usage"`
}

// openAIChatBody is the Chat Completions body, the prompt as one user
// message, usage asked for on the last chunk. The generic fallbacks send it
// too, the most widely accepted body.
func openAIChatBody(r Request) ([]byte, error) {
	return json.Marshal(openAIChatRequest{
		Model:         r.Model,
		Messages:      []openAIMessage{{Role: "user", Content: r.Prompt}},
		Stream:        true,
		StreamOptions: openAIStreamOptions{IncludeUsage: true},
		MaxTokens:     r.MaxTokens,
	})
}

type openAIChatRequest struct {
	Model         string              `json:"model,omitempty"`
	Messages      []openAIMessage     `json:"messages"`
	Stream        bool                `json:"stream"`
	StreamOptions openAIStreamOptions `json:"stream_options"`
	MaxTokens     int                 `json:"max_tokens,omitempty"`
}

// bearerAuth sets "Authorization: Bearer $env" unless the user gave one.
func bearerAuth(env string) func(http.Header, func(string) string) {
	return func(h http.Header, getenv func(string) string) {
		if h.Get("Authorization") != "" {
			return
		}
		if key := getenv(env); key != "" {
			h.Set("Authorization", "Bearer "+key)
		}
	}
}

// NewOpenAIDecoder decodes OpenAI-compatible chat and legacy completion
// streams (choices[].delta or choices[].text).
func NewOpenAIDecoder(limit int) *SSE {
	c := &openAIClassifier{}
	s := &SSE{Classify: c.classify, Limit: limit}
	c.bad = &s.bad
	return s
}

// openAIChunk is the part of a chunk the classifier reads. encoding/json
// decodes into it when the fast path (parseFast) declines a payload.
type openAIChunk struct {
	Object  string `json:"object"`
	Choices *[]struct {
		Delta struct {
			Content          string `json:"content"`
			Reasoning        string `json:"reasoning"`
			ReasoningContent string `json:"reasoning_content"`
			ToolCalls        []struct {
				Function struct {
					Arguments string `json:"arguments"`
				} `json:"function"`
			} `json:"tool_calls"`
		} `json:"delta"`
		Text string `json:"text"` // legacy completions
	} `json:"choices"`
	Usage *struct {
		CompletionTokens tokenCount `json:"completion_tokens"`
		PromptTokens     tokenCount `json:"prompt_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

// chunkInfo is what one chunk says, whichever parser read it. Its buffers
// are reused from chunk to chunk.
type chunkInfo struct {
	errVal    []byte // the top-level "error" value as written, nil when absent
	errObj    bool   // "object":"error" (vLLM's bare ErrorResponse)
	choices   bool   // "choices" is an array, possibly empty
	nChoices  int
	usage     bool // "usage" is an object
	tokens    int  // usage.completion_tokens
	prompt    int  // usage.prompt_tokens, when hasPrompt
	hasPrompt bool

	// text is content and legacy text, reasoning is reasoning_content and
	// reasoning, tool is tool-call arguments, each over all choices in order.
	text, reasoning, tool jsonText
}

func (ci *chunkInfo) reset() {
	ci.errVal, ci.errObj = nil, false
	ci.choices, ci.nChoices = false, 0
	ci.usage, ci.tokens, ci.prompt, ci.hasPrompt = false, 0, 0, false
	ci.text, ci.reasoning, ci.tool = ci.text.reset(), ci.reasoning.reset(), ci.tool.reset()
}

// parseSlow decodes with encoding/json, the reference the fast path matches.
func (ci *chunkInfo) parseSlow(data []byte) bool {
	var ch openAIChunk
	if json.Unmarshal(data, &ch) != nil {
		return false
	}
	ci.errVal = ch.Error
	ci.errObj = ch.Object == "error"
	if u := ch.Usage; u != nil && !u.CompletionTokens.odd { // an odd count is none, and the text stays
		ci.usage, ci.tokens = true, u.CompletionTokens.n
		if u.PromptTokens.known {
			ci.prompt, ci.hasPrompt = u.PromptTokens.n, true
		}
	}
	if ch.Choices != nil {
		ci.choices, ci.nChoices = true, len(*ch.Choices)
		for i := range *ch.Choices {
			choice := &(*ch.Choices)[i]
			d := &choice.Delta
			ci.text.addString(d.Content)
			ci.text.addString(choice.Text)
			ci.reasoning.addString(d.ReasoningContent)
			ci.reasoning.addString(d.Reasoning)
			for _, tc := range d.ToolCalls {
				ci.tool.addString(tc.Function.Arguments)
			}
		}
	}
	return true
}

type openAIClassifier struct {
	lastUsage int // completion_tokens of the previous usage report
	usageSeen bool
	ci        chunkInfo
	bad       *badEvents
}

var doneMarker = []byte("[DONE]")

func (c *openAIClassifier) classify(dst []Frame, ev *Event) []Frame {
	f := Frame{Kind: KindMeta, Bytes: ev.Bytes}
	switch {
	case ev.Keepalive:
		f.Kind = KindPing
	case bytes.HasPrefix(ev.Data, doneMarker): // SDKs match the prefix
		f.Kind = KindEnd
	case string(ev.Type) == "error":
		f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
	default:
		ci := &c.ci
		if !parseEither(ci, ev.Data) {
			f = c.bad.frame(ev.Data, ev.Bytes) // kept, and the stream fails decode
			break
		}
		if ci.errObj || (ci.errVal != nil && isTruthy(ci.errVal)) {
			f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
			break
		}
		if ci.usage {
			f.HasUsage, f.OutputTokens = true, ci.tokens
			if ci.hasPrompt {
				f.Server = map[string]json.RawMessage{"input_tokens": strconv.AppendInt(nil, int64(ci.prompt), 10)}
			}
		}
		if ci.nChoices == 0 { // no choices, null or []
			if f.HasUsage {
				f.Kind = KindUsage
			}
			break
		}
		f.Kind = KindRole // role-only, empty delta or finish chunk until text shows up
		// One frame per chunk. The channel is the answer's when the chunk
		// carries answer text, so TTFO lands where the answer begins.
		switch {
		case len(ci.text) > 0:
			ci.reasoning = append(ci.reasoning, ci.text...) // reasoning first, as it was written
			f.Kind, f.Channel, f.Text = KindContent, ChannelText, ci.reasoning.String()
		case len(ci.tool) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelTool, ci.tool.String()
		case len(ci.reasoning) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, ci.reasoning.String()
		}
		if f.HasUsage && c.usageSeen && f.Kind == KindContent && f.OutputTokens > c.lastUsage {
			// With vLLM's continuous_usage_stats every chunk carries a running
			// count, so the difference is this frame's tokens. A count
			// that does not grow (n>1 choices interleave their counts)
			// says nothing about this frame, so 0 says unknown.
			f.Tokens = f.OutputTokens - c.lastUsage
		}
	}
	if f.HasUsage {
		c.lastUsage, c.usageSeen = f.OutputTokens, true
	}
	return append(dst, f)
}

// isTruthy reports a JSON value other than null, false, "", 0, {} or [],
// as openai-python's truthiness check on an "error" key does.
func isTruthy(v []byte) bool {
	if string(v) == "null" { // the common case costs no decoding
		return false
	}
	var x any
	if json.Unmarshal(v, &x) != nil {
		return len(bytes.TrimSpace(v)) > 0 // e.g. a number beyond float64
	}
	switch x := x.(type) {
	case nil:
		return false
	case bool:
		return x
	case string:
		return x != ""
	case float64:
		return x != 0
	case map[string]any:
		return len(x) > 0
	case []any:
		return len(x) > 0
	}
	return true
}

// ErrorMessage extracts a readable message from an error payload. It takes
// a string "error", error.message, or a top-level message, and else the
// raw payload.
func ErrorMessage(data []byte) string {
	var e struct {
		Error   json.RawMessage `json:"error"`
		Message string          `json:"message"`
	}
	if json.Unmarshal(data, &e) != nil {
		return string(data)
	}
	var s string
	if json.Unmarshal(e.Error, &s) == nil && s != "" {
		return s
	}
	var inner struct {
		Message string `json:"message"`
		Type    string `json:"type"`
	}
	if json.Unmarshal(e.Error, &inner) == nil && inner.Message != "" {
		return inner.Message
	}
	if e.Message != "" {
		return e.Message
	}
	return string(data)
}

// chunkParser is the fast parser (fastjson.go) reading one chunk into ci.
type chunkParser struct {
	fastParser
	ci *chunkInfo
}

// parseFast reads the chunk shapes servers actually send, declining
// whatever encoding/json could read otherwise (FuzzOpenAI checks this).
func (ci *chunkInfo) parseFast(data []byte) bool {
	p := chunkParser{fastParser{d: data}, ci}
	p.ws()
	if !p.chunk() {
		return false
	}
	p.ws()
	return p.i == len(p.d)
}

func (p *chunkParser) chunk() bool {
	if !p.is('{') {
		return false // null, arrays and scalars go to encoding/json
	}
	ci := p.ci
	return p.object(func(key []byte) (uint8, bool) {
		switch string(key) {
		case "choices":
			isNull, ok := p.array(p.choice)
			ci.choices = ok && !isNull
			return 1, ok
		case "usage":
			return 2, p.usage()
		case "error":
			var ok bool
			ci.errVal, ok = p.raw()
			return 4, ok
		case "object":
			pc, ok := p.piece()
			ci.errObj = ok && (string(pc.raw) == "error" || pc.escaped && jsonText{pc}.String() == "error")
			return 8, ok
		}
		if foldsTo(key, "choices", "usage", "error", "object") {
			return 0, false
		}
		return 0, p.skip(0)
	})
}

func (p *chunkParser) choice() bool {
	ci := p.ci
	var content, text, rc, r textPiece // in the order they join, whatever the order written
	ok := p.object(func(key []byte) (uint8, bool) {
		var ok bool
		switch string(key) {
		case "delta":
			return 1, p.object(func(key []byte) (uint8, bool) {
				var ok bool
				switch string(key) {
				case "content":
					content, ok = p.piece()
					return 1, ok
				case "reasoning":
					r, ok = p.piece()
					return 2, ok
				case "reasoning_content":
					rc, ok = p.piece()
					return 4, ok
				case "tool_calls":
					_, ok = p.array(p.toolCall)
					return 8, ok
				}
				if foldsTo(key, "content", "reasoning", "reasoning_content", "tool_calls") {
					return 0, false
				}
				return 0, p.skip(0)
			})
		case "text":
			text, ok = p.piece()
			return 2, ok
		}
		if foldsTo(key, "delta", "text") {
			return 0, false
		}
		return 0, p.skip(0)
	})
	if !ok {
		return false
	}
	ci.nChoices++
	ci.text.add(content)
	ci.text.add(text)
	ci.reasoning.add(rc)
	ci.reasoning.add(r)
	return true
}

func (p *chunkParser) toolCall() bool {
	return p.object(func(key []byte) (uint8, bool) {
		switch string(key) {
		case "function":
			return 1, p.object(func(key []byte) (uint8, bool) {
				if string(key) == "arguments" {
					return p.textTo(&p.ci.tool, 1)
				}
				if foldsTo(key, "arguments") {
					return 0, false
				}
				return 0, p.skip(0)
			})
		}
		if foldsTo(key, "function") {
			return 0, false
		}
		return 0, p.skip(0)
	})
}

func (p *chunkParser) usage() bool {
	if p.is('{') {
		p.ci.usage = true
	}
	return p.object(func(key []byte) (uint8, bool) {
		if string(key) == "completion_tokens" {
			if p.null() {
				return 1, true
			}
			n, ok := p.integer()
			p.ci.tokens = n
			return 1, ok
		}
		if string(key) == "prompt_tokens" {
			if p.null() {
				return 2, true
			}
			n, ok := p.integer()
			p.ci.prompt, p.ci.hasPrompt = n, true
			return 2, ok
		}
		if foldsTo(key, "completion_tokens") || foldsTo(key, "prompt_tokens") {
			return 0, false
		}
		return 0, p.skip(0)
	})
}
