package probe

import (
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"
)

// Seed corpora for these targets are in testdata/fuzz/<target> (kept
// small: the fuzzer minimizes every new input, and a 10 KB record takes
// it a minute), with more added here.

// FuzzParsePromptsJSONL: an accepted prompt file gives prompts with an id,
// a text and no negative max_tokens; a refused one says which line.
func FuzzParsePromptsJSONL(f *testing.F) {
	for _, s := range []string{`{"id":"a","prompt":"Hello?"}` + "\n" + `{"id":"b","prompt":"Bye","max_tokens":5}`,
		`{"id":"a","prompt":"x","extra":1}`, "\n\n", `{"id":" ","prompt":"x"}`, `{"id":"a","prompt":"x","max_tokens":-1}`,
		`{"id":"a","prompt":"x"}{"id":"b","prompt":"y"}`, `{"id":"\u202e","prompt":"\u0000"}`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		ps, err := ParsePromptsJSONL(strings.NewReader(text))
		if err != nil {
			if !strings.Contains(err.Error(), "line ") && !strings.Contains(err.Error(), "no prompts") {
				t.Fatalf("error %q names no line", err)
			}
			return
		}
		if len(ps) == 0 || len(ps) > strings.Count(text, "\n")+1 {
			t.Fatalf("%d prompts from %d lines", len(ps), strings.Count(text, "\n")+1)
		}
		for _, p := range ps {
			if strings.TrimSpace(p.ID) == "" || strings.TrimSpace(p.Text) == "" || p.MaxTokens < 0 {
				t.Fatalf("accepted prompt %+v", p)
			}
		}
	})
}

// FuzzHTTPErrorMessage: whatever an error body holds, the record's message
// names the status, is valid UTF-8 and stays within its bound.
func FuzzHTTPErrorMessage(f *testing.F) {
	for _, s := range []string{`{"error":{"message":"Rate limit reached","type":"requests"}}`, `{"error":"model not found"}`,
		`{"message":"bad key"}`, `<html>502 Bad Gateway</html>`, strings.Repeat("é", 400), `{"error":{"message":"` + strings.Repeat("日本", 200) + `"}}`, "\xff\xfe"} {
		f.Add(429, s)
	}
	f.Fuzz(func(t *testing.T, status int, body string) {
		status = 400 + (status%200+200)%200 // 400..599, as httpError sees them
		e := HTTPError(status, "", []byte(body))
		prefix := fmt.Sprintf("HTTP %d", status)
		if !strings.HasPrefix(e.Message, prefix) || e.Status != status || e.Class == "" {
			t.Fatalf("error %+v for status %d", *e, status)
		}
		if len(e.Message) > len(prefix)+len(": ")+errorMessageLimit+len("…") {
			t.Fatalf("message of %d bytes, bound %d", len(e.Message), errorMessageLimit)
		}
		if !utf8.ValidString(e.Message) && utf8.ValidString(body) {
			t.Fatalf("a valid body gave an invalid message %q", e.Message)
		}
	})
}
