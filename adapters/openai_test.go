package adapters

import (
	"bytes"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// oaWant is the observable part of a frame. Usage -1 means no usage
// report on the frame.
type oaWant struct {
	Kind    Kind
	Channel Channel
	Text    string
	Tokens  int
	Usage   int
}

func (w oaWant) matches(f Frame) bool {
	usage := -1
	if f.HasUsage {
		usage = f.OutputTokens
	}
	ch := f.Channel
	if f.Kind != KindContent {
		ch = w.Channel // channel is only meaningful on content frames
	}
	return w.Kind == f.Kind && w.Channel == ch && w.Text == f.Text && w.Tokens == f.Tokens && w.Usage == usage
}

func oaContent(s string) oaWant {
	return oaWant{Kind: KindContent, Channel: ChannelText, Text: s, Usage: -1}
}
func oaReasoning(s string) oaWant {
	return oaWant{Kind: KindContent, Channel: ChannelReasoning, Text: s, Usage: -1}
}
func oaTool(s string) oaWant {
	return oaWant{Kind: KindContent, Channel: ChannelTool, Text: s, Usage: -1}
}
func oaUsage(n int) oaWant { return oaWant{Kind: KindUsage, Usage: n} }
func oaError(msg string) oaWant {
	return oaWant{Kind: KindError, Text: msg, Usage: -1}
}

var (
	oaRole = oaWant{Kind: KindRole, Usage: -1}
	oaEnd  = oaWant{Kind: KindEnd, Usage: -1}
	oaPing = oaWant{Kind: KindPing, Usage: -1}
	oaMeta = oaWant{Kind: KindMeta, Usage: -1}
)

func readOpenAITestdata(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// decodeOpenAI decodes chunks with a fresh OpenAI decoder.
func decodeOpenAI(t testing.TB, chunks [][]byte) ([]Frame, error) {
	t.Helper()
	d := NewOpenAIDecoder(0)
	var frames []Frame
	var err error
	for _, c := range chunks {
		if frames, err = d.Feed(frames, c); err != nil {
			return frames, err
		}
	}
	return d.Close(frames)
}

func sameOpenAIFrames(a, b []Frame) bool {
	return slices.EqualFunc(a, b, func(x, y Frame) bool {
		return x.Kind == y.Kind && x.Channel == y.Channel && x.Text == y.Text && x.Bytes == y.Bytes &&
			x.Tokens == y.Tokens && x.OutputTokens == y.OutputTokens && x.HasUsage == y.HasUsage
	})
}

// checkOpenAIStream decodes in whole, at every split and byte by byte, asserts
// the frames are the same each way and match want, and that their byte
// counts add up to the input.
func checkOpenAIStream(t *testing.T, in []byte, want []oaWant) []Frame {
	t.Helper()
	frames, err := decodeOpenAI(t, feedWhole(in))
	if err != nil {
		t.Fatalf("decode: %v", err)
	}
	if len(frames) != len(want) {
		t.Errorf("%d frames, want %d", len(frames), len(want))
	}
	sum := 0
	for i, f := range frames {
		sum += f.Bytes
		if i < len(want) && !want[i].matches(f) {
			t.Errorf("frame %d: got {%v %v %q tokens=%d usage=%v/%d}, want %+v",
				i, f.Kind, f.Channel, f.Text, f.Tokens, f.HasUsage, f.OutputTokens, want[i])
		}
		if f.Kind == KindContent && f.Text == "" {
			t.Errorf("frame %d: content frame with empty text", i)
		}
	}
	if sum != len(in) {
		t.Errorf("frame bytes add up to %d, input is %d", sum, len(in))
	}
	names, feeds := everySplit(in)
	for i, f := range feeds {
		got, err := decodeOpenAI(t, f)
		if err != nil || !sameOpenAIFrames(got, frames) {
			t.Fatalf("%s: frames differ from a whole read (err %v)", names[i], err)
		}
	}
	return frames
}

func TestOpenAIRecordedStreams(t *testing.T) {
	t.Parallel()
	tests := []struct {
		file string
		want []oaWant
	}{
		{"openai_text.sse", []oaWant{ // FORMATS §2.1
			oaRole, oaContent("Hello"), oaContent("!"), oaContent(" How"), oaContent(" can"), oaContent(" I"),
			oaContent(" assist"), oaContent(" you"), oaContent(" today"), oaContent("?"),
			oaRole, // finish chunk: delta {} with finish_reason stop
			oaUsage(9), oaEnd,
		}},
		{"openai_tool.sse", []oaWant{ // FORMATS §2.2
			oaRole, // tool-call start: role, id, name and "arguments":"" carry no content
			oaTool(`{"`), oaTool("person"), oaTool("Name"), oaTool(`":"`), oaTool("Alice"), oaTool(`"}`),
			oaRole, oaUsage(16), oaEnd,
		}},
		{"openai_error.sse", []oaWant{ // FORMATS §2.3
			oaError("The server had an error processing your request. Sorry about that! You can retry your request, or contact us through our help center at help.openai.com if you keep seeing this error."),
			oaEnd,
		}},
		{"vllm_error.sse", []oaWant{
			oaError("This model's maximum context length is 4096 tokens. However, you requested 5000 tokens. Please reduce the length of the messages or completion."),
			oaEnd,
		}},
		{"vllm_error_old.sse", []oaWant{ // bare ErrorResponse of older vLLM-based servers
			oaError("The model `nope` does not exist."), oaEnd,
		}},
		{"deepseek_reasoning.sse", []oaWant{ // FORMATS §2.4
			oaRole, // reasoning_content "" is not content
			oaReasoning("Okay"), oaContent("9.8"),
			{Kind: KindRole, Usage: 250}, // finish chunk carrying usage, content ""
			oaEnd,
		}},
		{"deepseek_keepalive.sse", []oaWant{
			oaPing, oaPing, oaRole, oaReasoning("Okay"), oaPing, oaContent("9.8"), {Kind: KindRole, Usage: 250}, oaEnd,
		}},
		{"vllm_reasoning.sse", []oaWant{oaReasoning("is")}}, // vLLM's renamed field
		{"vllm_continuous.sse", []oaWant{ // FORMATS §2.5
			{Kind: KindRole, Usage: 0},
			{Kind: KindContent, Channel: ChannelReasoning, Text: "Let", Tokens: 1, Usage: 1},
			{Kind: KindContent, Channel: ChannelText, Text: "Hi", Tokens: 7, Usage: 8},
			{Kind: KindRole, Usage: 9},
			oaUsage(9), oaEnd,
		}},
		{"legacy_completions.sse", []oaWant{ // FORMATS §2.6
			oaContent("Hello"), oaContent(", "), oaContent("World!"), oaRole, oaUsage(362), oaEnd,
		}},
	}
	for _, tc := range tests {
		t.Run(tc.file, func(t *testing.T) {
			checkOpenAIStream(t, readOpenAITestdata(t, tc.file), tc.want)
		})
	}
}

func oaChunk(delta string) string {
	return `data: {"id":"c","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":` + delta + `,"logprobs":null,"finish_reason":null}]}` + "\n\n"
}

func TestOpenAIClassify(t *testing.T) {
	t.Parallel()
	tests := []struct {
		name string
		in   string
		want []oaWant
	}{
		{"keep-alive comment", ": keep-alive\n\n", []oaWant{oaPing}},
		{"openrouter comment", ": OPENROUTER PROCESSING\n\n", []oaWant{oaPing}},
		{"retry only", "retry: 3000\n\n", []oaWant{oaPing}},
		{"event only", "event: ping\n\n", []oaWant{oaPing}},
		{"done", "data: [DONE]\n\n", []oaWant{oaEnd}},
		{"done prefix", "data: [DONE] bye\n\n", []oaWant{oaEnd}},
		{"empty data", "data:\n\n", []oaWant{oaMeta}},
		{"json null", "data: null\n\n", []oaWant{oaMeta}},
		{"unknown object", `data: {"foo":{"bar":[1,2,{"content":"x"}]}}` + "\n\n", []oaWant{oaMeta}},
		{"empty choices without usage", `data: {"choices":[]}` + "\n\n", []oaWant{oaMeta}},
		{"usage only, no choices key", `data: {"usage":{"completion_tokens":4}}` + "\n\n", []oaWant{oaUsage(4)}},
		{"empty strings are never content", oaChunk(`{"content":"","reasoning":"","reasoning_content":"","tool_calls":[{"index":0,"function":{"arguments":""}}]}`), []oaWant{oaRole}},
		{"null fields", oaChunk(`{"role":"assistant","content":null,"reasoning":null,"tool_calls":null}`), []oaWant{oaRole}},
		{"null delta", `data: {"choices":[{"index":0,"delta":null}]}` + "\n\n", []oaWant{oaRole}},
		{"reasoning_content", oaChunk(`{"reasoning_content":"Hmm"}`), []oaWant{oaReasoning("Hmm")}},
		{"reasoning", oaChunk(`{"reasoning":"Hmm"}`), []oaWant{oaReasoning("Hmm")}},
		{"reasoning and text in one chunk is answer text", oaChunk(`{"reasoning":"so.","content":"Yes"}`), []oaWant{oaContent("so.Yes")}},
		{"tool args and text", oaChunk(`{"content":"a","tool_calls":[{"index":0,"function":{"arguments":"{}"}}]}`), []oaWant{oaContent("a")}},
		{"parallel tool calls", oaChunk(`{"tool_calls":[{"index":0,"function":{"arguments":"{\"a\""}},{"index":1,"function":{"arguments":"{\"b\""}}]}`), []oaWant{oaTool(`{"a"{"b"`)}},
		{"escapes", oaChunk(`{"content":"line\n\"q\" \u00e9 \ud83d\ude00 \/ \\"}`), []oaWant{oaContent("line\n\"q\" é 😀 / \\")}},
		{"lone surrogate", oaChunk(`{"content":"\ud800x"}`), []oaWant{oaContent("\uFFFDx")}},
		{"invalid utf-8 is replaced", "data: {\"choices\":[{\"delta\":{\"content\":\"a\xffb\"}}]}\n\n", []oaWant{oaContent("a\uFFFDb")}},
		{"two choices", `data: {"choices":[{"index":0,"delta":{"content":"a"}},{"index":1,"delta":{"content":"b"}}]}` + "\n\n", []oaWant{oaContent("ab")}},
		{"keys match case-insensitively, as encoding/json does", `data: {"CHOICES":[{"Delta":{"Content":"hi"}}]}` + "\n\n", []oaWant{oaContent("hi")}},
		{"escaped key", `data: {"choices":[{"delta":{"\u0063ontent":"hi"}}]}` + "\n\n", []oaWant{oaContent("hi")}},
		{"repeated key, last wins", `data: {"choices":[{"delta":{"content":"a","content":"b"}}]}` + "\n\n", []oaWant{oaContent("b")}},
		{"repeated usage, last wins", `data: {"usage":{"completion_tokens":3},"usage":null}` + "\n\n", []oaWant{oaMeta}},
		{"error object", `data: {"error":{"message":"boom","type":"server_error"}}` + "\n\n", []oaWant{oaError("boom")}},
		{"error string", `data: {"error":"overloaded"}` + "\n\n", []oaWant{oaError("overloaded")}},
		{"error null is not an error", `data: {"error":null,"choices":[{"delta":{"content":"ok"}}]}` + "\n\n", []oaWant{oaContent("ok")}},
		{"empty error is not an error", `data: {"error":{ },"choices":[{"delta":{"content":"ok"}}]}` + "\n\n", []oaWant{oaContent("ok")}},
		{"error false is not an error", `data: {"error":false,"choices":[{"delta":{"content":"ok"}}]}` + "\n\n", []oaWant{oaContent("ok")}},
		{"error event", "event: error\ndata: {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}\n\n", []oaWant{oaError("Overloaded")}},
		{"error event with text", "event: error\ndata: upstream closed\n\n", []oaWant{oaError("upstream closed")}},
		{"legacy text", `data: {"object":"text_completion","choices":[{"text":"Hi","index":0,"logprobs":null,"finish_reason":null}]}` + "\n\n", []oaWant{oaContent("Hi")}},
		{"pretty-printed chunk", "data: {\ndata:   \"choices\": [ { \"delta\" : { \"content\" : \"x\" } } ]\ndata: }\n\n", []oaWant{oaContent("x")}},
		{"running usage that does not grow gives no token count",
			`data: {"choices":[{"delta":{"content":"a"}}],"usage":{"completion_tokens":5}}` + "\n\n" +
				`data: {"choices":[{"delta":{"content":"b"}}],"usage":{"completion_tokens":3}}` + "\n\n" +
				`data: {"choices":[{"delta":{"content":"c"}}],"usage":{"completion_tokens":6}}` + "\n\n",
			[]oaWant{{Kind: KindContent, Text: "a", Usage: 5}, {Kind: KindContent, Text: "b", Usage: 3}, {Kind: KindContent, Text: "c", Tokens: 3, Usage: 6}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			checkOpenAIStream(t, []byte(tc.in), tc.want)
		})
	}
}

// The fast parser must agree with encoding/json on every payload it
// accepts, and accept the common shapes (or the benchmark would not be fast).
func TestOpenAIFastPathAgrees(t *testing.T) {
	t.Parallel()
	var payloads [][]byte
	for _, name := range []string{"openai_text.sse", "openai_tool.sse", "openai_error.sse", "deepseek_reasoning.sse",
		"vllm_continuous.sse", "vllm_reasoning.sse", "legacy_completions.sse", "vllm_error.sse", "vllm_error_old.sse"} {
		for _, line := range bytes.Split(readOpenAITestdata(t, name), []byte("\n")) {
			if p, ok := bytes.CutPrefix(line, []byte("data: ")); ok && !bytes.HasPrefix(p, doneMarker) {
				payloads = append(payloads, p)
				var fast chunkInfo
				if !fast.parseFast(p) {
					t.Errorf("%s: fast path declined a recorded chunk: %s", name, p)
				}
			}
		}
	}
	for _, p := range trickyPayloads {
		payloads = append(payloads, []byte(p))
	}
	for _, p := range payloads {
		checkFastAgrees(t, p)
	}
}

// trickyPayloads probe where the fast parser must decline or match
// encoding/json exactly. They also seed FuzzOpenAI.
var trickyPayloads = []string{
	`{"choices":[{"text":"a","delta":{"content":"x"}}],"choices":[{"text":"b"}]}`,
	`{"usage":{"completion_tokens":3},"usage":null}`,
	`{"choices":[{"delta":{"tool_calls":[{"function":{"arguments":"a"}}],"tool_calls":[]}}]}`,
	`{"CHOICES":[]}`, `{"choices":[],"choices":null}`, `{"usage":{"completion_tokens":1.0}}`,
	`{"usage":{"completion_tokens":1e2}}`, `{"usage":{"completion_tokens":-3}}`, `{"usage":{"completion_tokens":99999999999999999999}}`,
	`{"usage":{"completion_tokens":"5"}}`, `{"usage":null}`, `{"usage":[]}`, `{"choices":[null,{"text":"a"}]}`,
	`{"choices":[{"delta":{"tool_calls":[null,{"function":null},{"function":{"arguments":null}}]}}]}`,
	`{"choices":[{"delta":{"content":"\u12"}}]}`, `{"choices":[{"delta":{"content":"\'"}}]}`, `{"a":01}`, `{"a":-}`,
	`{"a":1.}`, `{"a":.5}`, `{"a":1e}`, `{"a":[1,]}`, `{"a":{"b":1,}}`, `{"a":tru}`, `{"a":"\x01"}`, ` {"a":1} `, `{"a":1} x`,
	`{"object":"error","message":"m"}`, `{"object":"\u0065rror","message":"m"}`, `{"object":"errors"}`, `{"object":5}`,
	`{"error":0}`, `{"error":0.0}`, `{"error":[]}`, `{"error":[0]}`,
	`{"error":1e999}`, "{\"choices\":[{\"delta\":{\"content\":\"\xed\xa0\x80\"}}]}", `{"choices":[{"delta":{"content":"\ud83d\u0041"}}]}`,
	strings.Repeat(`{"a":`, 100) + "1" + strings.Repeat("}", 100),
}

// checkFastAgrees compares the fast parser with encoding/json on p.
func checkFastAgrees(t testing.TB, p []byte) {
	t.Helper()
	var fast, slow chunkInfo
	if !fast.parseFast(p) {
		return
	}
	if !slow.parseSlow(p) {
		t.Fatalf("fast path accepted what encoding/json rejects: %q", p)
	}
	if fast.choices != slow.choices || fast.nChoices != slow.nChoices || fast.usage != slow.usage ||
		fast.tokens != slow.tokens || fast.errObj != slow.errObj || (fast.errVal == nil) != (slow.errVal == nil) ||
		(fast.errVal != nil && isTruthy(fast.errVal) != isTruthy(slow.errVal)) ||
		fast.text.String() != slow.text.String() || fast.reasoning.String() != slow.reasoning.String() ||
		fast.tool.String() != slow.tool.String() {
		t.Fatalf("fast and encoding/json disagree on %q:\nfast %+v\nslow %+v", p, fast, slow)
	}
}

func TestErrorMessage(t *testing.T) {
	t.Parallel()
	for in, want := range map[string]string{
		`{"error":{"message":"m","type":"t"}}`: "m",
		`{"error":"s"}`:                        "s",
		`{"message":"top"}`:                    "top",
		`{"error":{"code":1}}`:                 `{"error":{"code":1}}`,
		`not json`:                             "not json",
	} {
		if got := ErrorMessage([]byte(in)); got != want {
			t.Errorf("ErrorMessage(%s) = %q, want %q", in, got, want)
		}
	}
}

func TestOpenAIRequestBody(t *testing.T) {
	t.Parallel()
	f := Lookup("openai-chat")
	if f == nil {
		t.Fatal("openai-chat not registered")
	}
	b, err := f.Body(Request{Model: "m", Prompt: "hi", MaxTokens: 5})
	if err != nil {
		t.Fatal(err)
	}
	var got map[string]any
	if err := json.Unmarshal(b, &got); err != nil {
		t.Fatal(err)
	}
	if got["stream"] != true || got["model"] != "m" || got["max_tokens"] != float64(5) {
		t.Errorf("body %s", b)
	}
	if so, _ := got["stream_options"].(map[string]any); so["include_usage"] != true {
		t.Errorf("include_usage not requested: %s", b)
	}
}

// FuzzOpenAI pushes arbitrary bytes through the classifier, both as one
// event's data and as a whole SSE stream: no panic, exactly one frame per
// dispatched event, content frames never empty, and the fast parser never
// disagrees with encoding/json.
func FuzzOpenAI(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.sse"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed streams: %v", err)
	}
	for _, name := range files {
		stream, err := os.ReadFile(name)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(stream)
		for _, line := range bytes.Split(stream, []byte("\n")) {
			if p, ok := bytes.CutPrefix(line, []byte("data: ")); ok {
				f.Add(p)
			}
		}
	}
	for _, p := range trickyPayloads {
		f.Add([]byte(p))
	}
	f.Add([]byte(": keep-alive\n\n"))
	f.Add([]byte("event: error\ndata: {\"error\":{\"message\":\"x\"}}\n\n"))
	f.Fuzz(func(t *testing.T, in []byte) {
		checkFrame := func(fr Frame, data []byte) {
			if fr.Kind > KindError || fr.Channel > ChannelTool {
				t.Fatalf("kind %d channel %d for %q", fr.Kind, fr.Channel, data)
			}
			if fr.Kind == KindContent && fr.Text == "" {
				t.Fatalf("empty content frame for %q", data)
			}
			if fr.Tokens < 0 || (fr.Tokens > 0 && fr.Kind != KindContent) {
				t.Fatalf("Tokens %d on a %v frame for %q", fr.Tokens, fr.Kind, data)
			}
		}

		// As one event's data.
		checkFastAgrees(t, in)
		c := &openAIClassifier{bad: &badEvents{}}
		for _, typ := range []string{"", "error"} {
			frames := c.classify(nil, &Event{Type: []byte(typ), Data: in, Bytes: len(in) + 8})
			if len(frames) != 1 || frames[0].Bytes != len(in)+8 {
				t.Fatalf("%d frames for one event %q", len(frames), in)
			}
			checkFrame(frames[0], in)
		}

		// As a stream.
		d := NewOpenAIDecoder(1 << 10)
		classify := d.Classify
		events := 0
		d.Classify = func(dst []Frame, ev *Event) []Frame {
			events++
			n := len(dst)
			if !ev.Keepalive {
				checkFastAgrees(t, ev.Data)
			}
			dst = classify(dst, ev)
			if len(dst) != n+1 {
				t.Fatalf("event %q gave %d frames", ev.Data, len(dst)-n)
			}
			checkFrame(dst[n], ev.Data)
			return dst
		}
		frames, err := d.Feed(nil, in)
		if err == nil {
			frames, err = d.Close(frames)
		}
		if err != nil && !errors.Is(err, ErrTruncated) && !errors.Is(err, ErrFrameTooLarge) {
			t.Fatalf("unexpected error %v", err)
		}
		if len(frames) != events {
			t.Fatalf("%d frames for %d events", len(frames), events)
		}
	})
}
