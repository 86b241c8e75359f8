package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// A chunk that carries text beside a token count that is no whole number
// (2.5, 1e400) keeps its text: the count is left out, not the chunk (as
// an int field it made encoding/json refuse the chunk, and the answer lost
// a frame, or a stream its only content). A count written as a float with
// a whole value (12.0) is that count; a usage-only chunk with an odd
// count is no usage report.
func TestAnOddTokenCountKeepsTheText(t *testing.T) {
	t.Parallel()
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

// number reads what encoding/json reads into a *float64 as that value,
// nothing for a number beyond a float64 (which encoding/json refuses),
// and refuses what encoding/json cannot read as a number.
func FuzzNumber(f *testing.F) {
	for _, s := range []string{"0", "-0", "7", "2.5", "1e400", "-1e400", "1e-400", "1E+308", "9007199254740993", `"3"`, "null", " null ", "true", "{}", "[1]", "01", "1.", "+1", "Inf", "NaN"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, b []byte) {
		var n number
		nerr := json.Unmarshal(b, &n)
		var x *float64
		switch xerr := json.Unmarshal(b, &x); {
		case xerr == nil:
			if nerr != nil || (x == nil) != (n.v == nil) || x != nil && *x != *n.v {
				t.Fatalf("%q: encoding/json reads %v, number %v, %v", b, fmtFloat(x), fmtFloat(n.v), nerr)
			}
		case isRangeError(xerr):
			if nerr != nil || n.v != nil {
				t.Fatalf("%q: beyond a float64, number %v, %v; want none", b, fmtFloat(n.v), nerr)
			}
		case nerr == nil:
			t.Fatalf("%q: encoding/json reads no number (%v), number %v", b, xerr, fmtFloat(n.v))
		}
	})
}

func fmtFloat(p *float64) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}

// isRangeError is encoding/json's refusal of a number too large for a
// float64 (1e400), which is still a number.
func isRangeError(err error) bool {
	var ute *json.UnmarshalTypeError
	return errors.As(err, &ute) && strings.HasPrefix(ute.Value, "number")
}

// A number a server reports beside its events (input tokens, latencies,
// Ollama's durations) that is beyond a float64 (1e400) drops that value
// only: the event keeps its kind, its text and its other values (as a
// *float64 it made encoding/json refuse the event: Ollama's done line was
// lost and the stream read incomplete). Each event is read twice, the
// field at 7 and at 1e400.
func TestAnOverflowingNumberDropsOnlyThatValue(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		format, event string   // event: the field's value is %s
		keys          []string // the Server values it makes, gone at 1e400
	}{
		{"anthropic", `{"type":"message_start","message":{"usage":{"input_tokens":%s,"output_tokens":1}}}`, []string{"input_tokens"}},
		{"anthropic", `{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":%s,"outputTokenCount":6,"invocationLatency":812,"firstByteLatency":402}}`, []string{"input_tokens"}},
		{"anthropic", `{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":12,"outputTokenCount":6,"invocationLatency":%s,"firstByteLatency":402}}`, []string{"invocation_latency_ms"}},
		{"anthropic", `{"type":"message_stop","amazon-bedrock-invocationMetrics":{"inputTokenCount":12,"outputTokenCount":6,"invocationLatency":812,"firstByteLatency":%s}}`, []string{"first_byte_latency_ms"}},
		{"openai-responses", `{"type":"response.completed","response":{"usage":{"output_tokens":3,"input_tokens":%s}}}`, []string{"input_tokens"}},
		{"bedrock-converse", `{"usage":{"inputTokens":%s,"outputTokens":4},"metrics":{"latencyMs":5}}`, []string{"input_tokens"}},
		{"bedrock-converse", `{"usage":{"inputTokens":3,"outputTokens":4},"metrics":{"latencyMs":%s}}`, []string{"latency_ms"}},
		{"ollama-chat", `{"done":true,"eval_count":3,"total_duration":%s,"load_duration":1,"prompt_eval_count":2,"prompt_eval_duration":1,"eval_duration":1}`, []string{"total_duration_ms"}},
		{"ollama-chat", `{"done":true,"eval_count":3,"total_duration":9,"load_duration":%s,"prompt_eval_count":2,"prompt_eval_duration":1,"eval_duration":1}`, []string{"load_duration_ms"}},
		{"ollama-chat", `{"done":true,"eval_count":3,"total_duration":9,"load_duration":1,"prompt_eval_count":%s,"prompt_eval_duration":1,"eval_duration":1}`, []string{"prompt_eval_count"}},
		{"ollama-chat", `{"done":true,"eval_count":3,"total_duration":9,"load_duration":1,"prompt_eval_count":2,"prompt_eval_duration":%s,"eval_duration":1}`, []string{"prompt_eval_duration_ms"}},
		{"ollama-generate", `{"response":"","done":true,"eval_count":3,"total_duration":9,"load_duration":1,"prompt_eval_count":2,"prompt_eval_duration":1,"eval_duration":%s}`, []string{"eval_duration_ms", "eval_tokens_per_s"}},
	} {
		good, odd := decodeOne(t, c.format, fmt.Sprintf(c.event, "7")), decodeOne(t, c.format, fmt.Sprintf(c.event, "1e400"))
		for _, k := range c.keys {
			if _, ok := good.Server[k]; !ok {
				t.Errorf("%s %s at 7: no server %s in %s", c.format, c.event, k, serverText(good.Server))
			}
			delete(good.Server, k)
		}
		if odd.Kind != good.Kind || odd.Text != good.Text || odd.HasUsage != good.HasUsage || odd.OutputTokens != good.OutputTokens ||
			serverText(odd.Server) != serverText(good.Server) {
			t.Errorf("%s %s at 1e400: %v %q usage %v %d server %s; want %v %q usage %v %d server %s", c.format, c.event,
				odd.Kind, odd.Text, odd.HasUsage, odd.OutputTokens, serverText(odd.Server),
				good.Kind, good.Text, good.HasUsage, good.OutputTokens, serverText(good.Server))
		}
	}
}

// decodeOne is the one frame a format's decoder makes of one event.
func decodeOne(t *testing.T, format, event string) Frame {
	t.Helper()
	var in []byte
	switch format {
	case "ollama-chat", "ollama-generate":
		in = []byte(event + "\n")
	case "bedrock-converse":
		var b bytes.Buffer
		var h eventstream.Headers
		h.Set(":message-type", eventstream.StringValue("event"))
		h.Set(":event-type", eventstream.StringValue("metadata"))
		h.Set(":content-type", eventstream.StringValue("application/json"))
		eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: h, Payload: []byte(event)})
		in = b.Bytes()
	default:
		in = []byte("data: " + event + "\n\n")
	}
	frames, err := Lookup(format).NewDecoder(0).Feed(nil, in)
	if err != nil || len(frames) != 1 {
		t.Fatalf("%s %s: %d frames, %v; want 1", format, event, len(frames), err)
	}
	return frames[0]
}

// serverText is a frame's server values in key order.
func serverText(m map[string]json.RawMessage) string {
	keys := slices.Sorted(maps.Keys(m))
	var b strings.Builder
	for _, k := range keys {
		fmt.Fprintf(&b, "%s=%s ", k, m[k])
	}
	return b.String()
}
