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
			return userTurnBody(r, "contents", "parts", "generationConfig", "maxOutputTokens")
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
		CandidatesTokenCount tokenCount `json:"candidatesTokenCount"`
		ThoughtsTokenCount   tokenCount `json:"thoughtsTokenCount"`
	} `json:"usageMetadata"`
	Error json.RawMessage `json:"error"`
}

// geminiInfo is what one chunk says, whichever parser read it; its
// buffers are reused from chunk to chunk.
type geminiInfo struct {
	text, thought, tool jsonText // over all candidates' parts in order
	finished            bool     // a candidate has a finishReason
	usage               bool     // usageMetadata is an object
	tokens              int      // candidatesTokenCount + thoughtsTokenCount
	errVal              []byte   // the "error" value as written; nil when absent
}

func (g *geminiInfo) reset() {
	*g = geminiInfo{text: g.text.reset(), thought: g.thought.reset(), tool: g.tool.reset()}
}

func (g *geminiInfo) parseSlow(data []byte) bool {
	var ch geminiChunk
	if json.Unmarshal(data, &ch) != nil {
		return false
	}
	for _, cand := range ch.Candidates {
		g.finished = g.finished || cand.FinishReason != ""
		for _, p := range cand.Content.Parts {
			g.part(textPiece{raw: []byte(p.Text)}, p.Thought, p.FunctionCall)
		}
	}
	if u := ch.UsageMetadata; u != nil && !u.CandidatesTokenCount.odd && !u.ThoughtsTokenCount.odd { // an odd count is none: the text stays
		g.usage, g.tokens = true, u.CandidatesTokenCount.n+u.ThoughtsTokenCount.n
	}
	g.errVal = ch.Error
	return true
}

// part adds one part's text to its channel.
func (g *geminiInfo) part(text textPiece, thought bool, call []byte) {
	switch {
	case len(call) > 0 && isTruthy(call):
		g.tool.add(textPiece{raw: call}) // whole calls as written, not fragments
	case thought:
		g.thought.add(text)
	default:
		g.text.add(text)
	}
}

// parseFast reads chunks with the shared fast parser (fastjson.go).
func (g *geminiInfo) parseFast(data []byte) bool {
	p := &fastParser{d: data}
	return p.wholeObject(func(key []byte) (uint8, bool) {
		switch string(key) {
		case "candidates":
			_, ok := p.array(func() bool { return g.candidate(p) })
			return 1, ok
		case "usageMetadata":
			g.usage = p.is('{')
			return 2, p.object(func(key []byte) (uint8, bool) {
				switch string(key) {
				case "candidatesTokenCount", "thoughtsTokenCount":
					bit := uint8(1)
					if key[0] == 't' {
						bit = 2
					}
					if p.null() {
						return bit, true
					}
					n, ok := p.integer()
					g.tokens += n
					return bit, ok
				}
				return 0, !foldsTo(key, "candidatesTokenCount", "thoughtsTokenCount") && p.skip(0)
			})
		case "error":
			var ok bool
			g.errVal, ok = p.raw()
			return 4, ok
		}
		return 0, !foldsTo(key, "candidates", "usageMetadata", "error") && p.skip(0)
	})
}

func (g *geminiInfo) candidate(p *fastParser) bool {
	return p.object(func(key []byte) (uint8, bool) {
		switch string(key) {
		case "content":
			return 1, p.object(func(key []byte) (uint8, bool) {
				if string(key) == "parts" {
					_, ok := p.array(func() bool { return g.fastPart(p) })
					return 1, ok
				}
				return 0, !foldsTo(key, "parts") && p.skip(0)
			})
		case "finishReason":
			pc, ok := p.piece()
			g.finished = g.finished || len(pc.raw) > 0 // non-empty, escaped or not
			return 2, ok
		}
		return 0, !foldsTo(key, "content", "finishReason") && p.skip(0)
	})
}

func (g *geminiInfo) fastPart(p *fastParser) bool {
	var text textPiece
	var thought bool
	var call []byte
	ok := p.object(func(key []byte) (uint8, bool) {
		var ok bool
		switch string(key) {
		case "text":
			text, ok = p.piece()
			return 1, ok
		case "thought":
			thought, ok = p.boolean()
			return 2, ok
		case "functionCall":
			var ok bool
			call, ok = p.raw()
			return 4, ok
		}
		return 0, !foldsTo(key, "text", "thought", "functionCall") && p.skip(0)
	})
	if ok {
		g.part(text, thought, call)
	}
	return ok
}

// geminiClassifier remembers what Close needs: whether a finishReason came,
// and the last usage report (cumulative, so differences are per frame).
type geminiClassifier struct {
	finished  bool
	lastUsage int
	g         geminiInfo
	bad       *badEvents
}

// NewGeminiDecoder decodes a Gemini SSE stream.
func NewGeminiDecoder(limit int) Decoder {
	c := &geminiClassifier{}
	s := &SSE{Limit: limit, Classify: c.classify}
	c.bad = &s.bad
	return &eofEnd{
		Decoder: s,
		ready:   func() bool { return c.finished },
	}
}

func (c *geminiClassifier) classify(dst []Frame, ev *Event) []Frame {
	f := Frame{Kind: KindMeta, Bytes: ev.Bytes}
	if ev.Keepalive {
		f.Kind = KindPing
		return append(dst, f)
	}
	g := &c.g
	if !parseEither(g, ev.Data) {
		return append(dst, c.bad.frame(ev.Data, ev.Bytes)) // kept, and the stream fails decode
	}
	if len(g.errVal) > 0 && isTruthy(g.errVal) {
		f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
		return append(dst, f)
	}
	c.finished = c.finished || g.finished
	if g.usage {
		f.Kind = KindUsage
		f.HasUsage, f.OutputTokens = true, g.tokens
	}
	text, thought, tool := g.text, g.thought, g.tool
	switch {
	case len(text) > 0:
		g.thought = append(g.thought, text...) // reasoning first, as it was written
		f.Kind, f.Channel, f.Text = KindContent, ChannelText, g.thought.String()
	case len(tool) > 0:
		f.Kind, f.Channel, f.Text = KindContent, ChannelTool, tool.String()
	case len(thought) > 0:
		f.Kind, f.Channel, f.Text = KindContent, ChannelReasoning, thought.String()
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
