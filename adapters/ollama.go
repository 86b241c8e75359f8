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
		Name:  "ollama-chat",
		Path:  "/api/chat",
		Paths: []string{"/api/chat"},
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(ollamaRequest{
				Model:    r.Model,
				Messages: []openAIMessage{{Role: "user", Content: r.Prompt}},
				Stream:   true,
				Options:  ollamaOptions(r.MaxTokens),
			})
		},
		NewDecoder: func(limit int) Decoder { return NewOllamaDecoder(limit) },
	})
	Register(&Format{
		Name:  "ollama-generate",
		Path:  "/api/generate",
		Paths: []string{"/api/generate"},
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(ollamaRequest{
				Model:   r.Model,
				Prompt:  r.Prompt,
				Stream:  true,
				Options: ollamaOptions(r.MaxTokens),
			})
		},
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
	EvalCount          *int            `json:"eval_count"`
	PromptEvalCount    *float64        `json:"prompt_eval_count"`
	TotalDuration      *float64        `json:"total_duration"`
	LoadDuration       *float64        `json:"load_duration"`
	PromptEvalDuration *float64        `json:"prompt_eval_duration"`
	EvalDuration       *float64        `json:"eval_duration"`
}

// NewOllamaDecoder decodes an Ollama /api/chat or /api/generate stream.
func NewOllamaDecoder(limit int) *Lines {
	return &Lines{Limit: limit, Classify: classifyOllama}
}

func classifyOllama(dst []Frame, line []byte, n int) []Frame {
	f := Frame{Kind: KindMeta, Bytes: n}
	var l ollamaLine
	if json.Unmarshal(line, &l) != nil {
		return append(dst, f) // not JSON: metadata, never a crash
	}
	if len(l.Error) > 0 && isTruthy(l.Error) {
		f.Kind, f.Text = KindError, ErrorMessage(line)
		return append(dst, f)
	}
	text, thinking := l.Response, l.Thinking
	var tools json.RawMessage
	if m := l.Message; m != nil {
		text, thinking, tools = text+m.Content, thinking+m.Thinking, m.ToolCalls
	}
	switch {
	case l.Done:
		f.Kind = KindEnd
		if l.EvalCount != nil {
			f.HasUsage, f.OutputTokens = true, *l.EvalCount
		}
		f.Server = serverValues(nil,
			"total_duration_ms", nsToMS(l.TotalDuration),
			"load_duration_ms", nsToMS(l.LoadDuration),
			"prompt_eval_duration_ms", nsToMS(l.PromptEvalDuration),
			"eval_duration_ms", nsToMS(l.EvalDuration),
			"prompt_eval_count", l.PromptEvalCount)
		if l.EvalCount != nil && l.EvalDuration != nil && *l.EvalDuration > 0 {
			tps := float64(*l.EvalCount) / *l.EvalDuration * 1e9
			f.Server = serverValues(f.Server, "eval_tokens_per_s", &tps)
		}
	case text != "":
		f.Kind, f.Channel, f.Text = KindContent, ChannelText, text
	case len(tools) > 0 && isTruthy(tools):
		f.Kind, f.Channel, f.Text = KindContent, ChannelTool, string(tools) // whole calls, not fragments
	case thinking != "":
		f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, thinking
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
