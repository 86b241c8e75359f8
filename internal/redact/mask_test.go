package redact

import (
	"encoding/base64"
	"slices"
	"strings"
	"testing"
)

func TestCredentialValues(t *testing.T) {
	t.Parallel()
	basic := base64.StdEncoding.EncodeToString([]byte("alice:hunter2-long"))
	for _, c := range []struct {
		header string
		want   []string // among the values
	}{
		{"Bearer sk-abc-0123456789", []string{"Bearer sk-abc-0123456789", "sk-abc-0123456789"}},
		{"sk-ant-0123456789", []string{"sk-ant-0123456789"}},
		{"a=sess-0123456789; b=other-cookie-1", []string{"sess-0123456789", "other-cookie-1"}},
		{"AWS4-HMAC-SHA256 Credential=AKIAEXAMPLE7/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=f00dfeed0123",
			[]string{"AKIAEXAMPLE7/20260101/us-east-1/bedrock/aws4_request", "AKIAEXAMPLE7", "f00dfeed0123"}},
		{"Basic " + basic, []string{basic, "alice:hunter2-long", "hunter2-long"}},
	} {
		got := CredentialValues(c.header)
		for _, w := range c.want {
			if !slices.Contains(got, w) {
				t.Errorf("CredentialValues(%q) = %q, lacks %q", c.header, got, w)
			}
		}
		if slices.Contains(got, "Bearer") || slices.Contains(got, "AWS4-HMAC-SHA256") || slices.Contains(got, "Basic") {
			t.Errorf("CredentialValues(%q) = %q holds the scheme word", c.header, got)
		}
	}
}

func TestURLValues(t *testing.T) {
	t.Parallel()
	got := URLValues("http://bob:pa55-word-9@h/p?alt=sse&key=AIza-0123456789&X-Amz-Signature=sig%2Fabc%3D1234&model=gpt-4o-mini")
	basic := base64.StdEncoding.EncodeToString([]byte("bob:pa55-word-9"))
	for _, w := range []string{"bob", "pa55-word-9", "bob:pa55-word-9", basic, "AIza-0123456789", "sig%2Fabc%3D1234", "sig/abc=1234"} {
		if !slices.Contains(got, w) {
			t.Errorf("URLValues = %q, lacks %q", got, w)
		}
	}
	if slices.Contains(got, "sse") || slices.Contains(got, "gpt-4o-mini") {
		t.Errorf("URLValues = %q holds a value that is no secret", got)
	}
}

func TestMaskerHidesEveryOccurrenceKeepingLengths(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{"sk-0123456789", "short", "", "key/with=escapes"})
	for _, c := range []struct{ in, want string }{
		{`{"error":"Incorrect API key provided: sk-0123456789"}`, `{"error":"Incorrect API key provided: *************"}`},
		{"sk-0123456789sk-0123456789 and a short word", "************************** and a short word"},
		{"escaped key%2Fwith%3Descapes, raw key/with=escapes", "escaped ********************, raw ****************"},
		{"nothing secret here", "nothing secret here"},
	} {
		if got := m.String(c.in); got != c.want {
			t.Errorf("String(%q) = %q, want %q", c.in, got, c.want)
		}
		if got := string(m.Bytes([]byte(c.in))); got != c.want {
			t.Errorf("Bytes(%q) = %q, want %q", c.in, got, c.want)
		}
	}
	// Overlapping secrets: each is gone, whole.
	o := NewMasker([]string{"abcdefgh12", "12345678xy"})
	if got := o.String("<abcdefgh12345678xy>"); strings.Trim(got, "<>*") != "" || len(got) != 20 {
		t.Errorf("overlapping secrets: %q", got)
	}
	var none *Masker
	if got := none.String("sk-0123456789"); got != "sk-0123456789" {
		t.Errorf("a nil Masker changed the text: %q", got)
	}
}

// Text cut off inside a secret (a body kept up to --max-bytes) has the
// secret's start masked at its end, MinPrefix bytes or more of it, as a
// TextStream masks a piece's end; a whole secret anywhere is masked as
// Bytes masks it; fewer bytes, a scheme word's start, and text that does
// not end in a secret are kept.
func TestBytesCutMasksASecretCutOffAtTheEnd(t *testing.T) {
	t.Parallel()
	const key = "sk-Zq7vXw9KpL3mNc8R"
	m := NewMasker(CredentialValues("Bearer " + key))
	for _, c := range []struct{ in, want string }{
		{`{"text":"your key is sk-Zq7vXw9K`, `{"text":"your key is ***********`},
		{`{"text":"` + key + `"} then sk-Zq`, `{"text":"` + strings.Repeat("*", len(key)) + `"} then *****`},
		{`{"text":"sk-`, `{"text":"sk-`},
		{`{"text":"Polar Bear`, `{"text":"Polar Bear`},
		{`{"text":"sk-Zebra"}`, `{"text":"sk-Zebra"}`},
		{``, ``},
	} {
		if got := string(m.BytesCut([]byte(c.in))); got != c.want {
			t.Errorf("%q: %q, want %q", c.in, got, c.want)
		}
	}
	var none *Masker
	if got := string(none.BytesCut([]byte("sk-Zq7v"))); got != "sk-Zq7v" {
		t.Errorf("a nil Masker: %q", got)
	}
}
