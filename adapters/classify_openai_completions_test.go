package adapters

import "testing"

func TestOpenAICompletionsFrames(t *testing.T) {
	t.Parallel()
	f := Lookup("openai-completions")
	checkFrames(t, func() Decoder { return f.NewDecoder(0) }, testdataFile(t, "openai_completions_legacy.sse"), []string{
		"content:text:Hello", "content:text:, ", "content:text:World!", "role", "usage=362", "end",
	})
	if ForPath("/v1/completions") != f || ForPath("/v1/chat/completions").Name != "openai-chat" {
		t.Error("the longest path suffix must win")
	}
}
