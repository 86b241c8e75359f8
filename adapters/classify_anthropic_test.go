package adapters

import (
	"net/http"
	"testing"
)

func TestAnthropicFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return NewAnthropicDecoder(0) }
	checkFrames(t, dec, testdataFile(t, "anthropic_text.sse"), []string{
		"role", "meta", "ping", "content:text:Hello", "content:text: there", "content:text:!", "meta", "usage=6", "end",
	})
	checkFrames(t, dec, testdataFile(t, "anthropic_tool.sse"), []string{
		"role", "meta", "ping", "content:text:I", "content:text:'ll check the current weather in Paris for you.", "meta",
		"meta", "role", // the empty partial_json is not content
		"content:tool:{\"locati", "content:tool:on\": \"P", "content:tool:ar", "content:tool:is\"}",
		"meta", "usage=65", "end",
	})
	checkFrames(t, dec, testdataFile(t, "anthropic_thinking.sse"), []string{
		"role", "meta",
		"content:reasoning:Let me solve this step by step:\n\n1. First break down 27 * 453",
		"content:reasoning:\n2. 453 = 400 + 50 + 3",
		"meta", // signature_delta
		"meta", "meta", "content:text:27 * 453 = 12,231", "meta", "usage", "end",
	})
	checkFrames(t, dec, testdataFile(t, "anthropic_error.sse"), []string{"role", "error:Overloaded"})
}

func TestAnthropicAuth(t *testing.T) {
	t.Parallel()
	f := Lookup("anthropic")
	h := http.Header{}
	f.Auth(h, func(k string) string { return map[string]string{"ANTHROPIC_API_KEY": "sk-ant"}[k] })
	if h.Get("X-Api-Key") != "sk-ant" || h.Get("Anthropic-Version") != AnthropicVersion {
		t.Errorf("headers %v", h)
	}
	h = http.Header{"X-Api-Key": {"mine"}, "Anthropic-Version": {"2099-01-01"}}
	f.Auth(h, func(string) string { return "sk-ant" })
	if h.Get("X-Api-Key") != "mine" || h.Get("Anthropic-Version") != "2099-01-01" {
		t.Errorf("-H headers overwritten: %v", h)
	}
	body, _ := f.Body(Request{Model: "claude", Prompt: "hi"})
	if string(body) != `{"model":"claude","messages":[{"role":"user","content":"hi"}],"max_tokens":1024,"stream":true}` {
		t.Errorf("body %s", body)
	}
}
