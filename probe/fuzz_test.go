package probe

import (
	"bytes"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/driplab/drip/record"
)

// Seed corpora for these targets are in testdata/fuzz/<target> (kept
// small: the fuzzer minimizes every new input, and a 10 KB record takes
// it a minute), with more added here.

// FuzzReadRecords: whatever a record file holds, reading it never panics,
// and what it accepts drip can write and read back to the same streams.
func FuzzReadRecords(f *testing.F) {
	f.Fuzz(func(t *testing.T, data []byte) {
		recs, skipped, err := ReadRecords(bytes.NewReader(data))
		if err != nil {
			return
		}
		var buf bytes.Buffer
		w := NewWriter(&buf)
		for _, r := range recs {
			if r.V != record.RecordVersion {
				t.Fatalf("accepted a record of version %d", r.V)
			}
			if err := w.Write(r); err != nil {
				t.Fatalf("a record read from a file cannot be written: %v", err)
			}
		}
		again, skipped2, err := ReadRecords(&buf)
		if err != nil || len(skipped2) > 0 || len(again) != len(recs) {
			t.Fatalf("written back: %d records (skipped %v, %v), want %d (first read skipped %d)", len(again), skipped2, err, len(recs), len(skipped))
		}
		for i := range recs {
			if a, b := recs[i], again[i]; a.Status != b.Status || a.ContentFrames != b.ContentFrames || len(a.Stalls) != len(b.Stalls) {
				t.Fatalf("record %d read back as %s/%d frames/%d stalls, was %s/%d/%d", i, b.Status, b.ContentFrames, len(b.Stalls), a.Status, a.ContentFrames, len(a.Stalls))
			}
		}
	})
}

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
