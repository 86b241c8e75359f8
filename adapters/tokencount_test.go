package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"math"
	"strings"
	"testing"
)

// A chunk that carries text beside a token count that is no whole number
// (2.5, 1e400) keeps its text: the count is left out, not the chunk (as
// an int field it made encoding/json refuse the chunk, and the answer lost
// a frame, or a stream its only content). A count written as a float with
// a whole value (12.0) is that count; a usage-only chunk with an odd
// count is no usage report.
func TestAnOddTokenCountKeepsTheText(t *testing.T) {
	for _, c := range []struct {
		format, event string
		kind          Kind
		text          string
		usage         bool
		tokens        int
	}{
		{"openai-chat", `{"choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":{"completion_tokens":2.5}}`, KindContent, "Hi", false, 0},
		{"openai-chat", `{"choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":{"completion_tokens":1e400,"prompt_tokens":3}}`, KindContent, "Hi", false, 0},
		{"openai-chat", `{"choices":[{"index":0,"delta":{"content":"Hi"}}],"usage":{"completion_tokens":12.0,"prompt_tokens":3.5}}`, KindContent, "Hi", true, 12},
		{"openai-chat", `{"choices":[],"usage":{"completion_tokens":1E400}}`, KindMeta, "", false, 0},
		{"openai-chat", `{"choices":[],"usage":{"completion_tokens":-2.0}}`, KindUsage, "", true, -2},
		{"gemini", `{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}],"usageMetadata":{"candidatesTokenCount":2.5}}`, KindContent, "Hi", false, 0},
		{"gemini", `{"candidates":[{"content":{"parts":[{"text":"Hi"}]}}],"usageMetadata":{"candidatesTokenCount":4.0,"thoughtsTokenCount":1}}`, KindContent, "Hi", true, 5},
		{"ollama-chat", `{"model":"m","message":{"role":"assistant","content":""},"done":true,"eval_count":2.5,"eval_duration":100}`, KindEnd, "", false, 0},
		{"ollama-chat", `{"model":"m","message":{"role":"assistant","content":""},"done":true,"eval_count":3.0}`, KindEnd, "", true, 3},
		{"tgi", `{"token":{"id":1,"text":"Hi","special":false},"generated_text":"Hi","details":{"finish_reason":"eos_token","generated_tokens":1e400}}`, KindContent, "Hi", false, 0},
		{"openai-responses", `{"type":"response.completed","response":{"usage":{"output_tokens":2.5,"input_tokens":1}}}`, KindEnd, "", false, 0},
		{"anthropic", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":2.5}}`, KindUsage, "", false, 0},
		{"anthropic", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":7.0}}`, KindUsage, "", true, 7},
	} {
		in := "data: " + c.event + "\n\n"
		if c.format == "ollama-chat" {
			in = c.event + "\n"
		}
		d := Lookup(c.format).NewDecoder(0)
		frames, err := d.Feed(nil, []byte(in))
		if err != nil || len(frames) < 1 || c.format != "tgi" && len(frames) != 1 {
			t.Errorf("%s %s: %d frames, %v; want 1", c.format, c.event, len(frames), err)
			continue
		}
		f := frames[0]
		if f.Kind != c.kind || f.Text != c.text || f.HasUsage != c.usage || f.OutputTokens != c.tokens {
			t.Errorf("%s %s: %v %q usage %v %d; want %v %q usage %v %d", c.format, c.event, f.Kind, f.Text, f.HasUsage, f.OutputTokens, c.kind, c.text, c.usage, c.tokens)
		}
	}
}

// tokenCount reads what encoding/json reads into an int as that int, and
// refuses what encoding/json cannot read as a number; any other number is
// its value when that is a whole number (exact in a float64), else odd.
func FuzzTokenCount(f *testing.F) {
	for _, s := range []string{"0", "-0", "7", "-5", "12.0", "1.2e1", "2.5", "1e400", "-1e400", "1e-400", "99999999999999999999", "9007199254740993", `"3"`, "null", "true", "{}", "[1]", "01", "1.", "+1"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var c tokenCount
		cerr := json.Unmarshal(b, &c)
		var n int
		if json.Unmarshal(b, &n) == nil {
			if cerr != nil || (string(bytes.TrimSpace(b)) != "null" && (!c.known || c.n != n)) {
				t.Fatalf("%q: encoding/json reads int %d, tokenCount %+v, %v", b, n, c, cerr)
			}
			return
		}
		var x float64
		switch xerr := json.Unmarshal(b, &x); {
		case xerr != nil && !isRangeError(xerr):
			if cerr == nil {
				t.Fatalf("%q: encoding/json reads no number (%v), tokenCount %+v", b, xerr, c)
			}
		case cerr != nil:
			t.Fatalf("%q: a number, tokenCount refuses it: %v", b, cerr)
		case xerr == nil && x == math.Trunc(x) && math.Abs(x) <= 1<<53:
			if !c.known || c.n != int(x) {
				t.Fatalf("%q: whole number %v, tokenCount %+v", b, x, c)
			}
		case !c.odd || c.known:
			t.Fatalf("%q: no whole number (%v), tokenCount %+v; want odd", b, x, c)
		}
	})
}

// isRangeError is encoding/json's refusal of a number too large for a
// float64 (1e400), which is still a number.
func isRangeError(err error) bool {
	var ute *json.UnmarshalTypeError
	return errors.As(err, &ute) && strings.HasPrefix(ute.Value, "number")
}
