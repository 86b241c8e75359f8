package probe_test

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
)

func TestParsePromptsJSONL(t *testing.T) {
	ps, err := probe.ParsePromptsJSONL(strings.NewReader(`{"id":"a","prompt":"one"}

{"id":"b","prompt":"two","max_tokens":64}
`))
	if err != nil {
		t.Fatal(err)
	}
	if len(ps) != 2 || ps[0] != (probe.Prompt{ID: "a", Text: "one"}) || ps[1] != (probe.Prompt{ID: "b", Text: "two", MaxTokens: 64}) {
		t.Errorf("prompts %+v", ps)
	}
}

func TestParsePromptsJSONLErrorsNameTheLine(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`{"id":"a","prompt":"x"}` + "\n" + `{"id":"b"`, "line 2:"},
		{`{"id":"a","prompt":"x"}` + "\n\n" + `{"prompt":"y"}`, `line 3: missing "id"`},
		{`{"id":"a"}`, `line 1: missing "prompt"`},
		{`{"id":"a","prompt":"x","max_tokens":-1}`, `line 1: negative "max_tokens"`},
		{`{"id":"a","prompt":"x","temperature":1}`, `line 1: json: unknown field "temperature"`},
		{`["a","b"]`, "line 1: an array, not an object"},
		{`{"id":7,"prompt":"x"}`, `line 1: "id" is a number, not a string`},
		{`{"id":"a","prompt":"x","max_tokens":1.5}`, `line 1: "max_tokens" is a number 1.5, not a whole number`},
		{`{"id":"a","prompt":"x","max_tokens":1e3}`, `line 1: "max_tokens" is a number 1e3: write it in digits, 1000`},
		{`{"id":"a","prompt":"x","max_tokens":99999999999999999999}`, `line 1: "max_tokens" is a number 99999999999999999999, a whole number out of range`},
		{`{"id":"a","prompt":"x","max_tokens":"64"}`, `line 1: "max_tokens" is a string, not a whole number`},
		{`{"id":"a","prompt":"x"}` + "\n" + `{"id":"a","prompt":"x"} {"id":"b"}`, `line 2: more after the object (one object a line)`},
		{`{"id":"a","prompt":"x"}}`, `line 1: more after the object`},
		{`{"id":"a","prompt":"x"}` + "\n" + `{"id":"b","prompt":"` + strings.Repeat("x", 17<<20) + `"}`, "line 2: longer than 16 MiB"},
		{"\n\n", "no prompts"},
	} {
		_, err := probe.ParsePromptsJSONL(strings.NewReader(tc.in))
		if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.Is(err, probe.ErrPromptFile) || strings.Contains(err.Error(), "struct") {
			t.Errorf("%.80q: error %.200v, want one containing %q", tc.in, err, tc.want)
		}
	}
}

func TestLoadPromptFile(t *testing.T) {
	dir := t.TempDir()
	text := filepath.Join(dir, "essay.txt")
	os.WriteFile(text, []byte("Write an essay.\n\nAbout rivers.\n"), 0o600)
	ps, err := probe.LoadPromptFile(context.Background(), text)
	if err != nil || len(ps) != 1 || ps[0].ID != "essay" || ps[0].Text != "Write an essay.\n\nAbout rivers." {
		t.Errorf("text file: %+v, %v", ps, err)
	}
	jl := filepath.Join(dir, "set.jsonl")
	os.WriteFile(jl, []byte(`{"id":"q","prompt":"?"}`+"\nnot json\n"), 0o600)
	if _, err := probe.LoadPromptFile(context.Background(), jl); err == nil || !strings.Contains(err.Error(), "set.jsonl: line 2:") {
		t.Errorf("jsonl error %v", err)
	}
	empty := filepath.Join(dir, "empty.txt")
	os.WriteFile(empty, []byte(" \n"), 0o600)
	if _, err := probe.LoadPromptFile(context.Background(), empty); err == nil {
		t.Error("an empty prompt file loaded")
	}
	if _, err := probe.LoadPromptFile(context.Background(), filepath.Join(dir, "missing.txt")); err == nil {
		t.Error("a missing file loaded")
	}
}

func TestBuiltinPrompts(t *testing.T) {
	ps := probe.BuiltinPrompts()
	if len(ps) != 3 || probe.CheckPromptIDs(ps) != nil {
		t.Fatalf("builtin %+v", ps)
	}
	if len(ps[0].Text) >= len(ps[1].Text) || len(ps[1].Text) >= len(ps[2].Text) {
		t.Error("the builtin prompts should ask for short, medium and long answers, in that order")
	}
	if err := probe.CheckPromptIDs([]probe.Prompt{{ID: "a"}, {ID: "a"}}); err == nil {
		t.Error("duplicate ids accepted")
	}
}
