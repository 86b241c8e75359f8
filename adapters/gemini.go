package adapters

import (
	"encoding/json"
	"net/http"
)

// Google Gemini streamGenerateContent?alt=sse (FORMATS §7.2): SSE data
// events without a sentinel. parts[].text is content (thought parts are
// reasoning, functionCall parts tool calls); usageMetadata is cumulative on
// every chunk; the stream ends at EOF after a chunk with finishReason, so the
// decoder's Close emits the end frame when one was seen.

func init() {
	Register(&Format{
		Name:  "gemini",
		Path:  "/v1beta/models/{model}:streamGenerateContent?alt=sse",
		Paths: []string{":streamGenerateContent"},
		Body: func(r Request) ([]byte, error) {
			type part struct {
				Text string `json:"text"`
			}
			type content struct {
				Role  string `json:"role"`
				Parts []part `json:"parts"`
			}
			type config struct {
				MaxOutputTokens int `json:"maxOutputTokens,omitempty"`
			}
			return json.Marshal(struct {
				Contents         []content `json:"contents"`
				GenerationConfig *config   `json:"generationConfig,omitempty"`
			}{
				Contents: []content{{Role: "user", Parts: []part{{r.Prompt}}}},
				GenerationConfig: func() *config {
					if r.MaxTokens > 0 {
						return &config{r.MaxTokens}
					}
					return nil
				}(),
			})
		},
		Auth: func(h http.Header, getenv func(string) string) {
			if h.Get("X-Goog-Api-Key") != "" || h.Get("Authorization") != "" {
				return
			}
			if key := getenv("GEMINI_API_KEY"); key != "" {
				h.Set("X-Goog-Api-Key", key)
			}
		},
		NewDecoder: func(limit int) Decoder { return NewGeminiDecoder(limit) },
		EndIsEOF:   true,
	})
}

type geminiChunk struct {
	Candidates []struct {
		Content struct {
			Parts []struct {
				Text         string          `json:"text"`
				Thought      bool            `json:"thought"`
				FunctionCall json.RawMessage `json:"functionCall"`
			} `json:"parts"`
		} `json:"content"`
		FinishReason string `json:"finishReason"`
	} `json:"candidates"`
	UsageMetadata *struct {
		CandidatesTokenCount int `json:"candidatesTokenCount"`
		ThoughtsTokenCount   int `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	Error json.RawMessage `json:"error"`
}

// geminiClassifier remembers what Close needs: whether a finishReason came,
// and the last usage report (cumulative, so differences are per frame).
type geminiClassifier struct {
	finished  bool
	lastUsage int
}

// NewGeminiDecoder decodes a Gemini SSE stream.
func NewGeminiDecoder(limit int) Decoder {
	c := &geminiClassifier{}
	return &eofEnd{
		Decoder: &SSE{Limit: limit, Classify: c.classify},
		ready:   func() bool { return c.finished },
	}
}

func (c *geminiClassifier) classify(dst []Frame, ev *Event) []Frame {
	f := Frame{Kind: KindMeta, Bytes: ev.Bytes}
	if ev.Keepalive {
		f.Kind = KindPing
		return append(dst, f)
	}
	var ch geminiChunk
	if json.Unmarshal(ev.Data, &ch) != nil {
		return append(dst, f)
	}
	if len(ch.Error) > 0 && isTruthy(ch.Error) {
		f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
		return append(dst, f)
	}
	var text, thought, tool []byte
	for _, cand := range ch.Candidates {
		if cand.FinishReason != "" {
			c.finished = true
		}
		for _, p := range cand.Content.Parts {
			switch {
			case len(p.FunctionCall) > 0 && isTruthy(p.FunctionCall):
				tool = append(tool, p.FunctionCall...) // whole calls, not fragments
			case p.Thought:
				thought = append(thought, p.Text...)
			default:
				text = append(text, p.Text...)
			}
		}
	}
	if u := ch.UsageMetadata; u != nil {
		f.Kind = KindUsage
		f.HasUsage, f.OutputTokens = true, u.CandidatesTokenCount+u.ThoughtsTokenCount
	}
	switch {
	case len(text) > 0:
		f.Kind, f.Channel, f.Text = KindContent, ChannelText, string(thought)+string(text)
	case len(tool) > 0:
		f.Kind, f.Channel, f.Text = KindContent, ChannelTool, string(tool)
	case len(thought) > 0:
		f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, string(thought)
	}
	if f.HasUsage {
		// The count starts from zero, so the first report is the first
		// frame's own; a count that does not grow says nothing.
		if f.Kind == KindContent && f.OutputTokens > c.lastUsage {
			f.Tokens = f.OutputTokens - c.lastUsage
		}
		c.lastUsage = f.OutputTokens
	}
	return append(dst, f)
}
