package adapters

import "encoding/json"

// OpenAI legacy Completions streaming (FORMATS §2.6): the chat stream's
// framing with choices[].text instead of a delta, no role chunk, usage on a
// trailing chunk with `choices: []`, `data: [DONE]` at the end. The OpenAI
// classifier already reads choices[].text.

func init() {
	Register(&Format{
		Name:  "openai-completions",
		Path:  "/v1/completions",
		Paths: []string{"/completions"}, // /chat/completions is longer and wins
		Body: func(r Request) ([]byte, error) {
			return json.Marshal(struct {
				Model         string              `json:"model,omitempty"`
				Prompt        string              `json:"prompt"`
				Stream        bool                `json:"stream"`
				StreamOptions openAIStreamOptions `json:"stream_options"`
				MaxTokens     int                 `json:"max_tokens,omitempty"`
			}{r.Model, r.Prompt, true, openAIStreamOptions{IncludeUsage: true}, r.MaxTokens})
		},
		Auth:       bearerAuth("OPENAI_API_KEY"),
		NewDecoder: func(limit int) Decoder { return NewOpenAIDecoder(limit) },
	})
}
