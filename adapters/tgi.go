package adapters

import "encoding/json"

// Hugging Face TGI's /generate_stream (FORMATS §7.1) is SSE, one event per
// token. token.text is content unless the token is special. The last event
// carries details (generated_tokens) and is both content and the end. An
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
				Model      string     `json:"model,omitempty"` // TGI serves one model, and proxies route by it
				Inputs     string     `json:"inputs"`
				Parameters parameters `json:"parameters"`
			}{r.Model, r.Prompt, parameters{r.MaxTokens, true}})
		},
		Auth:       bearerAuth("HF_TOKEN"),
		NewDecoder: func(limit int) Decoder { return NewTGIDecoder(limit) },
	})
}

// tgiEvent is the part of an event the classifier reads. encoding/json
// decodes into it when the fast path declines a payload.
type tgiEvent struct {
	Token *struct {
		Text    string `json:"text"`
		Special bool   `json:"special"`
	} `json:"token"`
	GeneratedText *string `json:"generated_text"`
	Details       *struct {
		GeneratedTokens tokenCount `json:"generated_tokens"`
	} `json:"details"`
	Error json.RawMessage `json:"error"`
}

// tgiInfo is what one event says, whichever parser read it. Its buffer is
// reused from event to event.
type tgiInfo struct {
	text      textPiece // token.text
	special   bool      // token.special
	end       bool      // details or generated_text is present in the last event
	tokens    *int      // details.generated_tokens (slow path only)
	errVal    []byte    // the "error" value as written, nil when absent
	tokenSeen bool      // token is an object
}

func (t *tgiInfo) reset() { *t = tgiInfo{} }

func (t *tgiInfo) parseSlow(data []byte) bool {
	var e tgiEvent
	if json.Unmarshal(data, &e) != nil {
		return false
	}
	if e.Token != nil {
		t.tokenSeen, t.special = true, e.Token.Special
		t.text = pieceOf(e.Token.Text)
	}
	t.end = e.Details != nil || e.GeneratedText != nil
	if e.Details != nil && e.Details.GeneratedTokens.known { // an odd count is none, and the last token stays
		t.tokens = &e.Details.GeneratedTokens.n
	}
	t.errVal = e.Error
	return true
}

// parseFast reads token events with the shared fast parser
// (fastjson.go), declining a non-null details (the last event only).
func (t *tgiInfo) parseFast(data []byte) bool {
	p := fastParser{d: data}
	return p.wholeObject(func(key []byte) (uint8, bool) {
		switch string(key) {
		case "token":
			t.tokenSeen = p.is('{')
			return 1, p.object(func(key []byte) (uint8, bool) {
				var ok bool
				switch string(key) {
				case "text":
					return p.set(&t.text, 1)
				case "special":
					t.special, ok = p.boolean()
					return 2, ok
				}
				return 0, !foldsTo(key, "text", "special") && p.skip(0)
			})
		case "generated_text":
			t.end = t.end || p.is('"')
			return 2, p.null() || p.is('"') && p.skipString()
		case "details":
			return 4, p.null()
		case "error":
			var ok bool
			t.errVal, ok = p.raw()
			return 8, ok
		}
		return 0, !foldsTo(key, "token", "generated_text", "details", "error") && p.skip(0)
	})
}

// NewTGIDecoder decodes a TGI /generate_stream stream.
func NewTGIDecoder(limit int) *SSE {
	var e tgiInfo
	s := &SSE{Limit: limit}
	s.Classify = func(dst []Frame, ev *Event) []Frame {
		f := Frame{Kind: KindMeta, Bytes: ev.Bytes}
		if ev.Keepalive {
			f.Kind = KindPing
			return append(dst, f)
		}
		if !parseEither(&e, ev.Data) {
			return append(dst, s.bad.frame(ev.Data, ev.Bytes)) // kept, and the stream fails decode
		}
		if len(e.errVal) > 0 && isTruthy(e.errVal) {
			f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
			return append(dst, f)
		}
		if e.tokenSeen && !e.special && len(e.text.raw) > 0 {
			f.Kind, f.Channel, f.Text = KindContent, ChannelText, e.text.String()
		} else if !e.end {
			f.Kind = KindRole // a special or empty token
		}
		if !e.end {
			return append(dst, f)
		}
		// The last event is its token and the end, two frames in one read.
		// generated_text repeats the whole answer and is not counted again.
		endFrame := Frame{Kind: KindEnd}
		if e.tokens != nil {
			endFrame.HasUsage, endFrame.OutputTokens = true, *e.tokens
		}
		if f.Kind == KindContent {
			return append(dst, f, endFrame)
		}
		endFrame.Bytes = f.Bytes
		return append(dst, endFrame)
	}
	return s
}
