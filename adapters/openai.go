package adapters

import (
	"bytes"
	"encoding/json"
	"net/http"
)

// OpenAI Chat Completions streaming (FORMATS §2): SSE with one JSON chunk per
// event, `data: [DONE]` at the end, usage on a final chunk with `choices: []`
// when stream_options.include_usage is set.

func init() {
	Register(&Format{
		Name:  "openai-chat",
		Path:  "/v1/chat/completions",
		Paths: []string{"/chat/completions"},
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(openAIChatRequest{
				Model:         r.Model,
				Messages:      []openAIMessage{{Role: "user", Content: r.Prompt}},
				Stream:        true,
				StreamOptions: openAIStreamOptions{IncludeUsage: true},
				MaxTokens:     r.MaxTokens,
			})
		},
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
	return &SSE{Classify: c.classify, Limit: limit}
}

type openAIChunk struct {
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
		CompletionTokens int `json:"completion_tokens"`
	} `json:"usage"`
	Error json.RawMessage `json:"error"`
}

type openAIClassifier struct {
	lastUsage int // completion_tokens of the previous usage report
	usageSeen bool
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
		var ch openAIChunk
		if json.Unmarshal(ev.Data, &ch) != nil {
			break // not JSON: metadata, never a crash
		}
		if isTruthy(ch.Error) {
			f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
			break
		}
		if ch.Usage != nil {
			f.HasUsage, f.OutputTokens = true, ch.Usage.CompletionTokens
		}
		if ch.Choices == nil {
			if f.HasUsage {
				f.Kind = KindUsage
			}
			break
		}
		if len(*ch.Choices) == 0 {
			if f.HasUsage {
				f.Kind = KindUsage
			}
			break
		}
		f.Kind = KindRole // role-only, empty delta or finish chunk until text shows up
		var text, reasoning, tool []byte
		for _, choice := range *ch.Choices {
			d := &choice.Delta
			text = append(append(text, d.Content...), choice.Text...)
			reasoning = append(append(reasoning, d.ReasoningContent...), d.Reasoning...)
			for _, tc := range d.ToolCalls {
				tool = append(tool, tc.Function.Arguments...)
			}
		}
		// One frame per chunk; the channel is the answer's when the chunk
		// carries answer text, so TTFO lands where the answer begins.
		switch {
		case len(text) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelText, string(append(reasoning, text...))
		case len(tool) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelTool, string(tool)
		case len(reasoning) > 0:
			f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, string(reasoning)
		}
		if f.HasUsage && c.usageSeen && f.Kind == KindContent {
			// vLLM continuous_usage_stats: every chunk carries a running
			// count, so the difference is this frame's tokens.
			f.Tokens = f.OutputTokens - c.lastUsage
		}
	}
	if f.HasUsage {
		c.lastUsage, c.usageSeen = f.OutputTokens, true
	}
	return append(dst, f)
}

// isTruthy reports a JSON value other than null, false, "", 0 or absent,
// as openai-python's check for an "error" key does.
func isTruthy(v json.RawMessage) bool {
	switch string(bytes.TrimSpace(v)) {
	case "", "null", "false", `""`, "0", "{}", "[]":
		return false
	}
	return true
}

// ErrorMessage extracts a readable message from an error payload: a string
// "error", error.message, or a top-level message; else the raw payload.
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
