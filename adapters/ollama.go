package adapters

import (
	"encoding/json"
)

// Ollama's native API (FORMATS §5): NDJSON, one JSON object per line.
// message.content / response are text, thinking is reasoning, tool_calls
// arrive whole; the `"done": true` line ends the stream with eval_count and
// the server's durations in nanoseconds; a line with "error" is an error.

func init() {
	Register(&Format{
		Name:       "ollama-chat",
		Path:       "/api/chat",
		Paths:      []string{"/api/chat"},
		Body:       ollamaBody(true),
		NewDecoder: func(limit int) Decoder { return NewOllamaDecoder(limit) },
	})
	Register(&Format{
		Name:       "ollama-generate",
		Path:       "/api/generate",
		Paths:      []string{"/api/generate"},
		Body:       ollamaBody(false),
		NewDecoder: func(limit int) Decoder { return NewOllamaDecoder(limit) },
	})
}

type ollamaRequest struct {
	Model    string          `json:"model,omitempty"`
	Messages []openAIMessage `json:"messages,omitempty"`
	Prompt   string          `json:"prompt,omitempty"`
	Stream   bool            `json:"stream"`
	Options  map[string]int  `json:"options,omitempty"`
}

// ollamaBody is /api/chat's body (the prompt as one user message) or
// /api/generate's (the prompt alone).
func ollamaBody(chat bool) func(Request) ([]byte, error) {
	return func(r Request) ([]byte, error) {
		req := ollamaRequest{Model: r.Model, Prompt: r.Prompt, Stream: true, Options: ollamaOptions(r.MaxTokens)}
		if chat {
			req.Messages, req.Prompt = []openAIMessage{{Role: "user", Content: r.Prompt}}, ""
		}
		return json.Marshal(req)
	}
}

func ollamaOptions(maxTokens int) map[string]int {
	if maxTokens <= 0 {
		return nil
	}
	return map[string]int{"num_predict": maxTokens}
}

// ollamaLine is the part of a line the classifier reads: chat lines carry
// message.*, generate lines response and thinking at the top.
type ollamaLine struct {
	Message *struct {
		Content   string          `json:"content"`
		Thinking  string          `json:"thinking"`
		ToolCalls json.RawMessage `json:"tool_calls"`
	} `json:"message"`
	Response           string          `json:"response"`
	Thinking           string          `json:"thinking"`
	Done               bool            `json:"done"`
	Error              json.RawMessage `json:"error"`
	EvalCount          tokenCount      `json:"eval_count"`
	PromptEvalCount    number          `json:"prompt_eval_count"`
	TotalDuration      number          `json:"total_duration"`
	LoadDuration       number          `json:"load_duration"`
	PromptEvalDuration number          `json:"prompt_eval_duration"`
	EvalDuration       number          `json:"eval_duration"`
}

// ollamaInfo is what one line says, whichever parser read it; its buffers
// are reused from line to line.
type ollamaInfo struct {
	text, thinking jsonText // response then message.content; thinking then message.thinking
	tools          []byte   // message.tool_calls as written; nil when absent
	errVal         []byte   // the "error" value as written; nil when absent
	done           bool
	l              *ollamaLine // the done line's counts and durations (slow path only)
}

func (o *ollamaInfo) reset() {
	*o = ollamaInfo{text: o.text.reset(), thinking: o.thinking.reset()}
}

func (o *ollamaInfo) parseSlow(line []byte) bool {
	var l ollamaLine
	if json.Unmarshal(line, &l) != nil {
		return false
	}
	o.text.addString(l.Response)
	o.thinking.addString(l.Thinking)
	if m := l.Message; m != nil {
		o.text.addString(m.Content)
		o.thinking.addString(m.Thinking)
		o.tools = m.ToolCalls
	}
	o.errVal, o.done, o.l = l.Error, l.Done, &l
	return true
}

// parseFast reads content lines with the shared fast parser
// (fastjson.go), declining the done line's counts and durations.
func (o *ollamaInfo) parseFast(line []byte) bool {
	p := fastParser{d: line}
	var response, thinking, content, mThinking textPiece // in the order they join
	str := p.piece
	ok := p.wholeObject(func(key []byte) (uint8, bool) {
		var ok bool
		switch string(key) {
		case "message":
			return 1, p.object(func(key []byte) (uint8, bool) {
				var ok bool
				switch string(key) {
				case "content":
					content, ok = str()
					return 1, ok
				case "thinking":
					mThinking, ok = str()
					return 2, ok
				case "tool_calls":
					var ok bool
					o.tools, ok = p.raw()
					return 4, ok
				}
				return 0, !foldsTo(key, "content", "thinking", "tool_calls") && p.skip(0)
			})
		case "response":
			response, ok = str()
			return 2, ok
		case "thinking":
			thinking, ok = str()
			return 4, ok
		case "done":
			o.done, ok = p.boolean()
			return 8, ok
		case "error":
			var ok bool
			o.errVal, ok = p.raw()
			return 16, ok
		}
		return 0, !foldsTo(key, "message", "response", "thinking", "done", "error", "eval_count", "prompt_eval_count",
			"total_duration", "load_duration", "prompt_eval_duration", "eval_duration") && p.skip(0)
	})
	o.text.add(response)
	o.text.add(content)
	o.thinking.add(thinking)
	o.thinking.add(mThinking)
	return ok
}

// NewOllamaDecoder decodes an Ollama /api/chat or /api/generate stream.
func NewOllamaDecoder(limit int) *Lines {
	c := &ollamaClassifier{}
	l := &Lines{Limit: limit, Classify: c.classify}
	c.bad = &l.bad
	return l
}

// ollamaClassifier classifies lines, reusing its parse buffers.
type ollamaClassifier struct {
	o   ollamaInfo
	bad *badEvents
}

func (c *ollamaClassifier) classify(dst []Frame, line []byte, n int) []Frame {
	f := Frame{Kind: KindMeta, Bytes: n}
	o := &c.o
	if !parseEither(o, line) {
		return append(dst, c.bad.frame(line, n)) // kept, and the stream fails decode
	}
	if len(o.errVal) > 0 && isTruthy(o.errVal) {
		f.Kind, f.Text = KindError, ErrorMessage(line)
		return append(dst, f)
	}
	l := o.l
	if l == nil {
		l = &ollamaLine{} // the fast path read no counts or durations
	}
	switch {
	case o.done:
		f.Kind = KindEnd
		if l.EvalCount.known { // an odd count is none: the end stays
			f.HasUsage, f.OutputTokens = true, l.EvalCount.n
		}
		f.Server = serverValues(nil,
			"total_duration_ms", nsToMS(l.TotalDuration.v),
			"load_duration_ms", nsToMS(l.LoadDuration.v),
			"prompt_eval_duration_ms", nsToMS(l.PromptEvalDuration.v),
			"eval_duration_ms", nsToMS(l.EvalDuration.v),
			"prompt_eval_count", l.PromptEvalCount.v)
		if l.EvalCount.known && l.EvalDuration.v != nil && *l.EvalDuration.v > 0 {
			tps := float64(l.EvalCount.n) / *l.EvalDuration.v * 1e9
			f.Server = serverValues(f.Server, "eval_tokens_per_s", &tps)
		}
	case len(o.text) > 0:
		f.Kind, f.Channel, f.Text = KindContent, ChannelText, o.text.String()
	case len(o.tools) > 0 && isTruthy(o.tools):
		f.Kind, f.Channel, f.Text = KindContent, ChannelTool, string(o.tools) // whole calls, not fragments
	case len(o.thinking) > 0:
		f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, o.thinking.String()
	default:
		f.Kind = KindRole
	}
	return append(dst, f)
}

// nsToMS converts Ollama's nanosecond durations to the milliseconds every
// other time in a record uses.
func nsToMS(ns *float64) *float64 {
	if ns == nil {
		return nil
	}
	v := *ns / 1e6
	return &v
}
