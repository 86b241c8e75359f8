package probe_test

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
)

// A header is a token, a colon and a value; a CR, LF or NUL anywhere, or
// a name that is no token, is refused without echoing the value.
func TestParseHeader(t *testing.T) {
	if n, v, err := probe.ParseHeader(" X-Api-Key :  s3cret "); n != "X-Api-Key" || v != "s3cret" || err != nil {
		t.Errorf("got %q %q %v", n, v, err)
	}
	for h, want := range map[string]string{
		"no colon":              "-H: bad header: want 'Name: value'",
		": v":                   "-H: bad header: want 'Name: value'",
		"X-A: s3cret\r\nX-B: b": "-H X-A: a header may not hold CR, LF or NUL",
		"X A: s3cret":           "-H X A: not a valid header name",
	} {
		_, _, err := probe.ParseHeader(h)
		if err == nil || !strings.HasPrefix(err.Error(), want) || strings.Contains(err.Error(), "s3cret") {
			t.Errorf("%q: %v, want %q and no value", h, err, want)
		}
	}
}

// Every -H goes into one header, a repeated name kept twice; none is an
// empty header, and the first bad one fails them all.
func TestParseHeaders(t *testing.T) {
	h, err := probe.ParseHeaders([]string{"X-A: 1", "X-A: 2", "X-B: 3"})
	if err != nil || len(h.Values("X-A")) != 2 || h.Get("X-B") != "3" {
		t.Errorf("got %v %v", h, err)
	}
	if h, err := probe.ParseHeaders(nil); h == nil || len(h) != 0 || err != nil {
		t.Errorf("none: got %#v %v, want an empty header", h, err)
	}
	if h, err := probe.ParseHeaders([]string{"X-A: 1", "bad"}); h != nil || err == nil {
		t.Errorf("a bad one: got %v %v, want its error", h, err)
	}
}

func TestTargetDescribe(t *testing.T) {
	sign := func(*http.Request, []byte) error { return nil }
	for _, tc := range []struct {
		t    probe.Target
		want string
	}{
		{probe.Target{URL: "http://h/x", Format: adapters.Auto}, "http://h/x as auto: the path names no format"},
		{probe.Target{URL: "http://u:pw@h/v1/chat/completions", Format: adapters.Lookup("openai-chat")}, "http://h/v1/chat/completions as openai-chat"},
		{probe.Target{URL: "https://h/m", Format: adapters.Lookup("bedrock-converse"), Sign: sign}, "https://h/m as bedrock-converse (SigV4-signed)"},
	} {
		if got := tc.t.Describe(); !strings.HasPrefix(got, tc.want) {
			t.Errorf("%q, want it to start %q", got, tc.want)
		}
	}
}

// A fixed body's model is the records' when -m names none; a -m that
// differs from it, or that the body lacks and the URL does not carry,
// is refused.
func TestTakeBodyModel(t *testing.T) {
	chat := adapters.Lookup("openai-chat")
	for _, tc := range []struct {
		body, model, url string
		want, err        string
	}{
		{`{"model":"m1"}`, "", "http://h/v1/chat/completions", "m1", ""},
		{`{"model":"m1"}`, "m1", "http://h/v1/chat/completions", "m1", ""},
		{`{"model":"m1"}`, "m2", "http://h/v1/chat/completions", "", `-m m2 and -d: the body asks for model "m1"`},
		{`{}`, "m2", "http://h/v1/chat/completions", "", "-m m2 and -d: the body names no model"},
		{`not json`, "", "http://h/v1/chat/completions", "", ""},
	} {
		tg := probe.Target{URL: tc.url, Format: chat, Body: []byte(tc.body), Request: adapters.Request{Model: tc.model}}
		err := tg.TakeBodyModel(tc.url, "-d")
		switch {
		case tc.err != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.err)):
			t.Errorf("%s -m %q: %v, want %q", tc.body, tc.model, err, tc.err)
		case tc.err == "" && (err != nil || tg.Request.Model != tc.want):
			t.Errorf("%s -m %q: model %q, %v; want %q", tc.body, tc.model, tg.Request.Model, err, tc.want)
		}
	}
}

// -p texts come first as p1, p2, …, then the files' prompts; none is the
// default prompt; a repeated id is refused naming where ids come from.
func TestPromptSet(t *testing.T) {
	dir := t.TempDir()
	file := filepath.Join(dir, "story.txt")
	if err := os.WriteFile(file, []byte("Tell a story."), 0o600); err != nil {
		t.Fatal(err)
	}
	set, err := probe.PromptSet(t.Context(), []string{"a", "b"}, []string{file})
	if err != nil || len(set) != 3 || set[0].ID != "p1" || set[1].Text != "b" || set[2].ID != "story" {
		t.Errorf("%+v, %v: want p1, p2, story", set, err)
	}
	if set, _ := probe.PromptSet(t.Context(), nil, nil); len(set) != 1 || set[0].ID != probe.DefaultPromptID || set[0].Text != probe.DefaultPrompt {
		t.Errorf("none given: %+v, want the default prompt", set)
	}
	if _, err := probe.PromptSet(t.Context(), nil, []string{filepath.Join(dir, "none.txt")}); err == nil || !strings.HasPrefix(err.Error(), "--prompt-file: ") {
		t.Errorf("a missing file: %v", err)
	}
	p1 := filepath.Join(dir, "p1.txt")
	if err := os.WriteFile(p1, []byte("x"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := probe.PromptSet(t.Context(), []string{"a"}, []string{p1}); err == nil || !strings.HasPrefix(err.Error(), "-p/--prompt-file: ") || !strings.Contains(err.Error(), "each must differ") {
		t.Errorf("p1 twice: %v", err)
	}
}
