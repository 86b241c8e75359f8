package adapters

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
)

// The other formats' fast paths reuse the OpenAI fast parser's helpers and
// are held to the same rule: on every payload they accept they agree with
// encoding/json (the slow path), and they accept the recorded content
// events (or the benchmarks would not be fast).

// dataPayloads returns the data lines of SSE testdata files.
func dataPayloads(t testing.TB, files ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range files {
		for _, line := range bytes.Split(testdataFile(t, name), []byte("\n")) {
			if p, ok := bytes.CutPrefix(bytes.TrimRight(line, "\r"), []byte("data:")); ok {
				out = append(out, bytes.TrimPrefix(p, []byte(" ")))
			}
		}
	}
	return out
}

// fastTricky probe declines shared by every format: repeats, folded and
// escaped keys, wrong types, bad numbers, nesting, trailing bytes.
var fastTricky = []string{
	`null`, `[]`, `{"a":1} x`, ` {"a":1} `, `{"a":01}`, `{"a":1.}`, `{"a":"\x01"}`, `{"a":tru}`, `{"a":[1,]}`,
	"{\"text\":\"\xed\xa0\x80\"}", `{"text":"\ud83d\u0041"}`, `{"text":"\u12"}`,
	strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100),
}

func fastSeeds(f *testing.F, payloads [][]byte, tricky ...string) {
	for _, p := range payloads {
		f.Add(p)
	}
	for _, p := range append(tricky, fastTricky...) {
		f.Add([]byte(p))
	}
}

var anthropicFiles = []string{"anthropic_text.sse", "anthropic_tool.sse", "anthropic_thinking.sse", "anthropic_error.sse"}

var anthropicTricky = []string{
	`{"type":"content_block_delta","delta":{"type":"text_delta","text":"a","Text":"b"}}`,
	`{"type":"content_block_delta","delta":{"type":"text_delta","text":"a"},"delta":{"text":"b"}}`,
	`{"TYPE":"ping"}`, `{"type":null,"delta":null,"usage":null}`, `{"usage":{"output_tokens":null}}`,
	`{"usage":{"output_tokens":1.0}}`, `{"usage":{"output_tokens":"3"}}`, `{"usage":{"output_tokens":-0}}`,
	`{"delta":{"type":5}}`, `{"delta":[]}`, `{"message":{"usage":{"input_tokens":3}}}`,
	`{"type":"message_delta","usage":{"output_tokens":7},"amazon-bedrock-invocationMetrics":{"outputTokenCount":9}}`,
}

func anthropicView(a *anthropicInfo) string {
	return fmt.Sprintf("%q %q %q %q %q tokens=%d/%v input=%v metrics=%v",
		a.typ, a.dType, a.text, a.thinking, a.partial, a.tokens, a.hasTokens, a.input != nil, a.metrics != nil)
}

func checkAnthropicFast(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow anthropicInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if a, b := anthropicView(&fast), anthropicView(&slow); a != b {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %s\nslow %s", p, a, b)
	}
}

func TestAnthropicFastPath(t *testing.T) {
	t.Parallel()
	for _, p := range dataPayloads(t, anthropicFiles...) {
		var a anthropicInfo
		if bytes.Contains(p, []byte(`"content_block_delta"`)) && !a.parseFast(p) {
			t.Errorf("fast path declined a recorded delta: %s", p)
		}
		checkAnthropicFast(t, p)
	}
	for _, p := range append(anthropicTricky, fastTricky...) {
		checkAnthropicFast(t, []byte(p))
	}
}

func FuzzAnthropicFast(f *testing.F) {
	fastSeeds(f, dataPayloads(f, anthropicFiles...), anthropicTricky...)
	f.Fuzz(func(t *testing.T, p []byte) { checkAnthropicFast(t, p) })
}

var responsesFiles = []string{"responses_reasoning.sse", "responses_tool.sse", "responses_error.sse"}

var responsesTricky = []string{
	`{"type":"response.output_text.delta","delta":"a","Delta":"b"}`, `{"type":"x","type":"y"}`,
	`{"delta":null,"type":null,"error":null}`, `{"delta":5}`, `{"error":{"message":"m"}}`, `{"error":[1,}`,
	`{"type":"response.completed","response":{"usage":{"output_tokens":3}}}`, `{"RESPONSE":{}}`,
}

func responsesView(r *responsesInfo) string {
	return fmt.Sprintf("%q %q usage=%v/%d input=%v err=%q", r.typ, r.delta, r.usage, r.tokens, r.input != nil, r.respErr)
}

func checkResponsesFast(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow responsesInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if a, b := responsesView(&fast), responsesView(&slow); a != b {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %s\nslow %s", p, a, b)
	}
}

func TestResponsesFastPath(t *testing.T) {
	t.Parallel()
	for _, p := range dataPayloads(t, responsesFiles...) {
		var r responsesInfo
		if bytes.Contains(p, []byte(`.delta"`)) && !r.parseFast(p) {
			t.Errorf("fast path declined a recorded delta: %s", p)
		}
		checkResponsesFast(t, p)
	}
	for _, p := range append(responsesTricky, fastTricky...) {
		checkResponsesFast(t, []byte(p))
	}
}

func FuzzResponsesFast(f *testing.F) {
	fastSeeds(f, dataPayloads(f, responsesFiles...), responsesTricky...)
	f.Fuzz(func(t *testing.T, p []byte) { checkResponsesFast(t, p) })
}

var tgiFiles = []string{"tgi.sse", "tgi_error.sse"}

var tgiTricky = []string{
	`{"token":{"text":"a","special":null},"generated_text":null,"details":null}`,
	`{"token":{"text":"a","special":1}}`, `{"token":{"text":"a","Special":true}}`, `{"token":null,"error":null}`,
	`{"token":{},"generated_text":"x"}`, `{"generated_text":5}`, `{"generated_text":"\u12"}`, `{"details":{}}`,
	`{"error":""}`, `{"error":"boom","error_type":"x"}`, `{"token":{"text":"a"},"token":{"text":"b"}}`,
}

func tgiView(t *tgiInfo) string {
	return fmt.Sprintf("%q special=%v end=%v tokens=%v err=%q seen=%v", t.text, t.special, t.end, t.tokens != nil, t.errVal, t.tokenSeen)
}

func checkTGIFast(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow tgiInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if a, b := tgiView(&fast), tgiView(&slow); a != b {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %s\nslow %s", p, a, b)
	}
}

func TestTGIFastPath(t *testing.T) {
	t.Parallel()
	for _, p := range dataPayloads(t, tgiFiles...) {
		var e tgiInfo
		if bytes.Contains(p, []byte(`"details":null`)) && !e.parseFast(p) {
			t.Errorf("fast path declined a recorded token: %s", p)
		}
		checkTGIFast(t, p)
	}
	for _, p := range append(tgiTricky, fastTricky...) {
		checkTGIFast(t, []byte(p))
	}
}

func FuzzTGIFast(f *testing.F) {
	fastSeeds(f, dataPayloads(f, tgiFiles...), tgiTricky...)
	f.Fuzz(func(t *testing.T, p []byte) { checkTGIFast(t, p) })
}

var ollamaFiles = []string{"ollama_chat.ndjson", "ollama_generate.ndjson", "ollama_thinking.ndjson", "ollama_error.ndjson"}

func ollamaLines(t testing.TB) [][]byte {
	var out [][]byte
	for _, name := range ollamaFiles {
		for _, line := range bytes.Split(testdataFile(t, name), []byte("\n")) {
			if len(bytes.TrimSpace(line)) > 0 {
				out = append(out, line)
			}
		}
	}
	return out
}

var ollamaTricky = []string{
	`{"response":"a","message":{"content":"b","thinking":"c"},"thinking":"d","done":false}`,
	`{"message":{"content":"a"},"message":{"content":"b"}}`, `{"Message":{"content":"a"}}`, `{"message":{"Content":"a"}}`,
	`{"message":null,"done":null,"error":null}`, `{"done":1}`, `{"done":true,"eval_count":3,"eval_duration":1e9}`,
	`{"message":{"tool_calls":[{"function":{"name":"f"}}]}}`, `{"message":{"tool_calls":null}}`, `{"error":"boom"}`,
	`{"EVAL_COUNT":3}`, `{"response":5}`,
}

func ollamaView(o *ollamaInfo) string {
	return fmt.Sprintf("%q %q tools=%q err=%q done=%v", o.text, o.thinking, o.tools, o.errVal, o.done)
}

func checkOllamaFast(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow ollamaInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if a, b := ollamaView(&fast), ollamaView(&slow); a != b {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %s\nslow %s", p, a, b)
	}
	if l := slow.l; l.EvalCount != (tokenCount{}) || l.PromptEvalCount.v != nil || l.TotalDuration.v != nil || l.LoadDuration.v != nil ||
		l.PromptEvalDuration.v != nil || l.EvalDuration.v != nil {
		t.Fatalf("fast path accepted counts or durations it does not read: %q", p)
	}
}

func TestOllamaFastPath(t *testing.T) {
	t.Parallel()
	for _, p := range ollamaLines(t) {
		var o ollamaInfo
		if bytes.Contains(p, []byte(`"done":false`)) && !o.parseFast(p) {
			t.Errorf("fast path declined a recorded line: %s", p)
		}
		checkOllamaFast(t, p)
	}
	for _, p := range append(ollamaTricky, fastTricky...) {
		checkOllamaFast(t, []byte(p))
	}
}

func FuzzOllamaFast(f *testing.F) {
	fastSeeds(f, ollamaLines(f), ollamaTricky...)
	f.Fuzz(func(t *testing.T, p []byte) { checkOllamaFast(t, p) })
}

var geminiFiles = []string{"gemini.sse", "gemini_thought.sse"}

var geminiTricky = []string{
	`{"candidates":[{"content":{"parts":[{"text":"a","thought":true},{"text":"b"},{"functionCall":{"name":"f"}}]},"finishReason":""}]}`,
	`{"candidates":[null,{"content":null},{"content":{"parts":[null,{"text":null,"thought":null,"functionCall":null}]}}]}`,
	`{"candidates":[{"content":{"parts":[{"text":"a","Text":"b"}]}}]}`, `{"Candidates":[]}`, `{"candidates":[1]}`,
	`{"usageMetadata":{"candidatesTokenCount":3,"thoughtsTokenCount":null}}`, `{"usageMetadata":{"candidatesTokenCount":1.5}}`,
	`{"usageMetadata":null,"error":null}`, `{"error":{"code":429}}`, `{"candidates":[{"finishReason":null}]}`,
	`{"candidates":[{"content":{"parts":[{"functionCall":0,"text":"a"}]}}]}`,
}

func geminiView(g *geminiInfo) string {
	return fmt.Sprintf("%q %q %q fin=%v usage=%v/%d err=%q", g.text, g.thought, g.tool, g.finished, g.usage, g.tokens, g.errVal)
}

func checkGeminiFast(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow geminiInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if a, b := geminiView(&fast), geminiView(&slow); a != b {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %s\nslow %s", p, a, b)
	}
}

func TestGeminiFastPath(t *testing.T) {
	t.Parallel()
	for _, p := range dataPayloads(t, geminiFiles...) {
		var g geminiInfo
		if !g.parseFast(p) {
			t.Errorf("fast path declined a recorded chunk: %s", p)
		}
		checkGeminiFast(t, p)
	}
	for _, p := range append(geminiTricky, fastTricky...) {
		checkGeminiFast(t, []byte(p))
	}
}

func FuzzGeminiFast(f *testing.F) {
	fastSeeds(f, dataPayloads(f, geminiFiles...), geminiTricky...)
	f.Fuzz(func(t *testing.T, p []byte) { checkGeminiFast(t, p) })
}

// eventPayloads returns the payloads of .events testdata files.
func eventPayloads(t testing.TB, files ...string) [][]byte {
	t.Helper()
	var out [][]byte
	for _, name := range files {
		for _, line := range bytes.Split(testdataFile(t, name), []byte("\n")) {
			if _, p, ok := bytes.Cut(line, []byte("\t")); ok {
				out = append(out, p)
			}
		}
	}
	return out
}

var converseTricky = []string{
	`{"delta":{"text":"a","Text":"b"}}`, `{"delta":{"text":"a"},"delta":{"text":"b"}}`, `{"Delta":{"text":"a"}}`,
	`{"delta":null,"p":"x"}`, `{"delta":{"text":null,"reasoningContent":null,"toolUse":null}}`,
	`{"delta":{"reasoningContent":{"text":"r","Text":"s"}}}`, `{"delta":{"toolUse":{"input":"{}","toolUseId":"t"}}}`,
	`{"delta":{"toolUse":{"input":5}}}`, `{"delta":{"text":"a","toolUse":{"input":"b"},"reasoningContent":{"text":"c"}}}`,
	`{"usage":{"inputTokens":3,"outputTokens":4},"metrics":{"latencyMs":5}}`, `{"usage":null}`, `{"METRICS":{}}`,
}

func converseView(c *converseInfo) string {
	usage := "nil"
	if u := c.usage; u != nil {
		usage = fmt.Sprint(u.InputTokens.v != nil, u.OutputTokens)
	}
	return fmt.Sprintf("%q %q %q usage=%s latency=%v", c.text, c.reasoning, c.tool, usage, c.latency != nil)
}

func checkConverseFast(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow converseInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if a, b := converseView(&fast), converseView(&slow); a != b {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %s\nslow %s", p, a, b)
	}
}

func TestConverseFastPath(t *testing.T) {
	t.Parallel()
	for _, p := range eventPayloads(t, "bedrock_converse.events") {
		var c converseInfo
		if bytes.Contains(p, []byte(`"delta"`)) && !c.parseFast(p) {
			t.Errorf("fast path declined a recorded delta: %s", p)
		}
		checkConverseFast(t, p)
	}
	for _, p := range append(converseTricky, fastTricky...) {
		checkConverseFast(t, []byte(p))
	}
}

func FuzzConverseFast(f *testing.F) {
	fastSeeds(f, eventPayloads(f, "bedrock_converse.events"), converseTricky...)
	f.Fuzz(func(t *testing.T, p []byte) { checkConverseFast(t, p) })
}

var invokeTricky = []string{
	`{"bytes":"e30="}`, `{"bytes":"e30"}`, `{"bytes":"e3\n0="}`, `{"bytes":"e3\\n0="}`, `{"bytes":"e3\\u0030="}`,
	`{"bytes":""}`, `{"bytes":null}`, `{"Bytes":"e30="}`, `{"bytes":"e30=","bytes":"e30="}`, `{"bytes":5}`,
	`{"bytes":"e30=","p":"abcd"}`, `{"bytes":"e30=\r"}`, `{"bytes":"!!!!"}`, `{"bytes":"e30=e30="}`,
}

func checkInvokeFast(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow invokeInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if a, b := fmt.Sprintf("%q", fast.bytes), fmt.Sprintf("%q", slow.bytes); a != b {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %s\nslow %s", p, a, b)
	}
}

func TestInvokeFastPath(t *testing.T) {
	t.Parallel()
	for _, p := range eventPayloads(t, "bedrock_invoke.events") {
		var c invokeInfo
		if !c.parseFast(p) {
			t.Errorf("fast path declined a recorded chunk: %s", p)
		}
		checkInvokeFast(t, p)
	}
	for _, p := range append(invokeTricky, fastTricky...) {
		checkInvokeFast(t, []byte(p))
	}
}

func FuzzInvokeFast(f *testing.F) {
	fastSeeds(f, eventPayloads(f, "bedrock_invoke.events"), invokeTricky...)
	f.Fuzz(func(t *testing.T, p []byte) { checkInvokeFast(t, p) })
}
