package probe

import (
	"testing"

	"github.com/driplab/drip/adapters"
)

// A base URL as SDKs take it gets the format's endpoint under it; any
// other path stays as it is.
func TestResolveEndpointCompletesBaseURLs(t *testing.T) {
	t.Parallel()
	for raw, want := range map[string]string{
		"http://h:8000/v1":                                        "http://h:8000/v1/chat/completions",
		"http://h:8000/v1/":                                       "http://h:8000/v1/chat/completions",
		"https://api.groq.com/openai/v1":                          "https://api.groq.com/openai/v1/chat/completions",
		"https://g.example/v1beta/openai/":                        "https://g.example/v1beta/openai/chat/completions",
		"http://h:8000/v1/chat/completions":                       "http://h:8000/v1/chat/completions",
		"http://h:8000/v1/models/x/generations":                   "http://h:8000/v1/models/x/generations",
		"https://api.anthropic.com/v1":                            "https://api.anthropic.com/v1/messages",
		"https://generativelanguage.googleapis.com/v1beta/openai": "https://generativelanguage.googleapis.com/v1beta/openai/chat/completions",
	} {
		got, _, err := ResolveEndpoint(raw, "auto", "m")
		if err != nil || got != want {
			t.Errorf("ResolveEndpoint(%s) = %s, %v; want %s", raw, got, err, want)
		}
	}
}

// The model of a Gemini or Bedrock endpoint is read from its path.
func TestModelFromURL(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ url, format, want string }{
		{"https://g.example/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse", "gemini", "gemini-2.0-flash"},
		{"https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-3-haiku-20240307-v1:0/converse-stream", "bedrock-converse", "anthropic.claude-3-haiku-20240307-v1:0"},
		{"http://h/v1/chat/completions", "openai-chat", ""},
		{"http://h/other", "gemini", ""},
	} {
		if got := ModelFromURL(c.url, adapters.Lookup(c.format)); got != c.want {
			t.Errorf("ModelFromURL(%s) = %q, want %q", c.url, got, c.want)
		}
	}
}

// A 404's hint names the format's endpoint at the same origin, and is
// empty when the path already is it.
func TestEndpointHint(t *testing.T) {
	t.Parallel()
	f := adapters.Lookup("openai-chat")
	if h := EndpointHint("http://h:8000/v1/chat/completions", f); h != "" {
		t.Errorf("hint at the format's own path: %q", h)
	}
	want := "no endpoint at /api/x? openai-chat streams from /v1/chat/completions: try http://h:8000/v1/chat/completions, or the base URL ending in /v1"
	if h := EndpointHint("http://h:8000/api/x?k=1", f); h != want {
		t.Errorf("hint = %q\nwant   %q", h, want)
	}
}
