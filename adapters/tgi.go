package adapters

import "encoding/json"

// Hugging Face TGI /generate_stream (FORMATS §7.1): SSE, one event per
// token. token.text is content unless the token is special; the last event
// carries details (generated_tokens) and is both content and the end; an
// event with "error" is an error. There is no [DONE].

func init() {
	Register(&Format{
		Name:  "tgi",
		Path:  "/generate_stream",
		Paths: []string{"/generate_stream"},
		Body: func(r Request) ([]byte, error) {
			type parameters struct {
				MaxNewTokens int  `json:"max_new_tokens,omitempty"`
				Details      bool `json:"details"` // without it the last event has no token count
			}
			return json.Marshal(struct {
				Model      string     `json:"model,omitempty"` // TGI serves one model; proxies route by it
				Inputs     string     `json:"inputs"`
				Parameters parameters `json:"parameters"`
			}{r.Model, r.Prompt, parameters{r.MaxTokens, true}})
		},
		Auth:       bearerAuth("HF_TOKEN"),
		NewDecoder: func(limit int) Decoder { return NewTGIDecoder(limit) },
	})
}

type tgiEvent struct {
	Token *struct {
		Text    string `json:"text"`
		Special bool   `json:"special"`
	} `json:"token"`
	GeneratedText *string `json:"generated_text"`
	Details       *struct {
		GeneratedTokens *int `json:"generated_tokens"`
	} `json:"details"`
	Error json.RawMessage `json:"error"`
}

// NewTGIDecoder decodes a TGI /generate_stream stream.
func NewTGIDecoder(limit int) *SSE {
	return &SSE{Limit: limit, Classify: func(dst []Frame, ev *Event) []Frame {
		f := Frame{Kind: KindMeta, Bytes: ev.Bytes}
		if ev.Keepalive {
			f.Kind = KindPing
			return append(dst, f)
		}
		var e tgiEvent
		if json.Unmarshal(ev.Data, &e) != nil {
			return append(dst, f)
		}
		if len(e.Error) > 0 && isTruthy(e.Error) {
			f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
			return append(dst, f)
		}
		end := e.Details != nil || e.GeneratedText != nil
		if e.Token != nil && !e.Token.Special && e.Token.Text != "" {
			f.Kind, f.Channel, f.Text = KindContent, ChannelText, e.Token.Text
		} else if !end {
			f.Kind = KindRole // a special or empty token
		}
		if !end {
			return append(dst, f)
		}
		// The last event is its token and the end: two frames, one read.
		// generated_text repeats the whole answer and is not counted again.
		endFrame := Frame{Kind: KindEnd}
		if e.Details != nil && e.Details.GeneratedTokens != nil {
			endFrame.HasUsage, endFrame.OutputTokens = true, *e.Details.GeneratedTokens
		}
		if f.Kind == KindContent {
			return append(dst, f, endFrame)
		}
		endFrame.Bytes = f.Bytes
		return append(dst, endFrame)
	}}
}
