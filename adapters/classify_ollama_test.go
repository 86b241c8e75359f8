package adapters

import (
	"encoding/json"
	"testing"
)

func TestOllamaFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return NewOllamaDecoder(0) }
	frames := checkFrames(t, dec, testdataFile(t, "ollama_generate.ndjson"), []string{"content:text:The", "end=259"})
	// Durations are kept, in ms; the ns originals convert exactly enough.
	want := map[string]float64{
		"total_duration_ms": 10706.818083, "load_duration_ms": 6338.219291, "prompt_eval_duration_ms": 130.079,
		"eval_duration_ms": 4232.71, "prompt_eval_count": 26, "eval_tokens_per_s": 259 / 4.23271,
	}
	checkServer(t, frames[1].Server, want)
	checkFrames(t, dec, testdataFile(t, "ollama_chat.ndjson"), []string{"content:text:The", "end=282"})
	checkFrames(t, dec, testdataFile(t, "ollama_thinking.ndjson"), []string{
		"content:reasoning:Okay", "content:reasoning:, the user", "content:text:17 × 23 = 391", "end=120",
	})
	checkFrames(t, dec, testdataFile(t, "ollama_error.ndjson"), []string{
		"content:text:Hi", "error:an error was encountered while running the model",
	})
}

func TestOllamaPartialLastLine(t *testing.T) {
	t.Parallel()
	_, err := decodeReads(NewOllamaDecoder(0), [][]byte{[]byte(`{"response":"The","done":fa`)})
	if err != ErrTruncated {
		t.Errorf("cut line: %v, want ErrTruncated", err)
	}
	frames, err := decodeReads(NewOllamaDecoder(0), [][]byte{[]byte(`{"response":"The","done":false}`)})
	if err != nil || len(frames) != 1 || frames[0].Kind != KindContent {
		t.Errorf("complete JSON without its newline: %v %v", frames, err)
	}
}

func checkServer(t *testing.T, got map[string]json.RawMessage, want map[string]float64) {
	t.Helper()
	if len(got) != len(want) {
		t.Errorf("server %v, want %v", got, want)
	}
	for k, w := range want {
		var v float64
		if json.Unmarshal(got[k], &v) != nil || v-w > 1e-9 || w-v > 1e-9 {
			t.Errorf("server[%s] = %s, want %v", k, got[k], w)
		}
	}
}
