package adapters_test

import (
	"bytes"
	"fmt"
	"os"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
)

// Decoders frame in place: a frame's text is copied out of the read only
// when the frame is made. The probe reuses its read buffer for the next
// read, so nothing a decoder keeps may alias it. These tests read streams
// through one buffer that is overwritten after every Feed, as the next read
// would, and check every frame after the stream has ended.

// decodeThrough feeds reads to d through one reused buffer, scribbling
// over it after each Feed.
func decodeThrough(t *testing.T, d adapters.Decoder, reads [][]byte) ([]adapters.Frame, error) {
	t.Helper()
	size := 0
	for _, r := range reads {
		size = max(size, len(r))
	}
	buf := make([]byte, size)
	var frames []adapters.Frame
	var err error
	for _, r := range reads {
		n := copy(buf, r)
		if frames, err = d.Feed(frames, buf[:n]); err != nil {
			return frames, err
		}
		for i := range buf {
			buf[i] = '#'
		}
	}
	return d.Close(frames)
}

// decodeFresh feeds the same reads, each a copy nothing overwrites.
func decodeFresh(d adapters.Decoder, reads [][]byte) ([]adapters.Frame, error) {
	var frames []adapters.Frame
	var err error
	for _, r := range reads {
		if frames, err = d.Feed(frames, bytes.Clone(r)); err != nil {
			return frames, err
		}
	}
	return d.Close(frames)
}

// checkReusedBuffer decodes wire through a reused buffer, in the reads
// given and in reads of 1, 7, 100 and 1,024 bytes, against the same reads
// decoded fresh; it returns how many content frames carried text.
func checkReusedBuffer(t *testing.T, f *adapters.Format, reads [][]byte) int {
	t.Helper()
	wire := bytes.Join(reads, nil)
	splits := [][][]byte{reads}
	for _, size := range []int{1, 7, 100, 1 << 10} {
		var split [][]byte
		for rest := wire; len(rest) > 0; rest = rest[min(size, len(rest)):] {
			split = append(split, rest[:min(size, len(rest))])
		}
		splits = append(splits, split)
	}
	texts := 0
	for _, split := range splits {
		want, werr := decodeFresh(f.NewDecoder(0), split)
		got, gerr := decodeThrough(t, f.NewDecoder(0), split)
		if fmt.Sprint(werr) != fmt.Sprint(gerr) {
			t.Fatalf("%s, %d reads: error %v through a reused buffer, %v fresh", f.Name, len(split), gerr, werr)
		}
		if len(got) != len(want) {
			t.Fatalf("%s, %d reads: %d frames through a reused buffer, %d fresh", f.Name, len(split), len(got), len(want))
		}
		for i := range want {
			if g, w := fmt.Sprintf("%+v", got[i]), fmt.Sprintf("%+v", want[i]); g != w {
				t.Fatalf("%s, %d reads: frame %d through a reused buffer\n  %s\nfresh\n  %s", f.Name, len(split), i, g, w)
			}
			if want[i].Kind == adapters.KindContent && want[i].Text != "" {
				texts++
			}
		}
	}
	return texts
}

func TestFramesOutliveTheReadBuffer(t *testing.T) {
	t.Parallel()
	for _, name := range adapters.Names() {
		f := adapters.Lookup(name)
		for _, sc := range []string{"steady", "hostile-text", "reasoning", "multi-token", "in-stream-error"} {
			reads, _, err := fixtures.Render(name, fixtures.Lookup(sc), "m")
			if err != nil {
				t.Fatal(err)
			}
			if n := checkReusedBuffer(t, f, reads); n == 0 && sc != "in-stream-error" {
				t.Errorf("%s %s: no content frame with text: the test checked nothing", name, sc)
			}
		}
	}
}

// TestRecordedFramesOutliveTheReadBuffer does the same over the recorded
// streams: tool calls, reasoning fields, escapes, keepalives, errors.
func TestRecordedFramesOutliveTheReadBuffer(t *testing.T) {
	t.Parallel()
	for format, files := range map[string][]string{
		"openai-chat": {"openai_text.sse", "openai_tool.sse", "openai_error.sse", "deepseek_reasoning.sse",
			"deepseek_keepalive.sse", "vllm_continuous.sse", "vllm_reasoning.sse", "vllm_error.sse"},
		"openai-completions": {"legacy_completions.sse", "openai_completions_legacy.sse"},
		"openai-responses":   {"responses_reasoning.sse", "responses_tool.sse", "responses_error.sse"},
		"anthropic":          {"anthropic_text.sse", "anthropic_tool.sse", "anthropic_thinking.sse", "anthropic_error.sse"},
		"tgi":                {"tgi.sse", "tgi_error.sse"},
		"gemini":             {"gemini.sse", "gemini_thought.sse"},
		"ollama-chat":        {"ollama_chat.ndjson", "ollama_generate.ndjson", "ollama_thinking.ndjson", "ollama_error.ndjson"},
		"bedrock-converse":   {"bedrock_converse.events"},
		"bedrock-invoke":     {"bedrock_invoke.events"},
		"sse":                {"anthropic_text.sse", "openai_tool.sse"},
		"ndjson":             {"ollama_chat.ndjson"},
	} {
		texts := 0
		for _, file := range files {
			var wire []byte
			if strings.HasSuffix(file, ".events") {
				wire = adapters.EventStreamFile(t, file)
			} else {
				var err error
				if wire, err = os.ReadFile("testdata/" + file); err != nil {
					t.Fatal(err)
				}
			}
			texts += checkReusedBuffer(t, adapters.Lookup(format), [][]byte{wire})
		}
		if texts == 0 {
			t.Errorf("%s: no content frame with text: the test checked nothing", format)
		}
	}
}

// TestDetectedFramesOutliveTheReadBuffer: --format auto hands the read it
// detected on to the decoder as it lies, so the detector's frames must
// outlive the reused buffer as every decoder's do.
func TestDetectedFramesOutliveTheReadBuffer(t *testing.T) {
	t.Parallel()
	for _, name := range adapters.Names() {
		for _, sc := range []string{"steady", "hostile-text", "reasoning"} {
			reads, _, err := fixtures.Render(name, fixtures.Lookup(sc), "m")
			if err != nil {
				t.Fatal(err)
			}
			n := checkReusedBuffer(t, adapters.Auto, reads)
			if n == 0 && checkReusedBuffer(t, adapters.Lookup(name), reads) > 0 {
				t.Errorf("%s %s: auto-detected, no content frame with text: the test checked nothing", name, sc)
			}
		}
	}
}
