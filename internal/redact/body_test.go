package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// Secret members at any depth and presigned URLs anywhere in a JSON body
// are masked, named, and nothing else of the body changes: counts named
// like secrets ("max_tokens": 100) stay, and so does the layout.
func TestJSONMasksSecretMembersAndURLQueriesAtAnyDepth(t *testing.T) {
	t.Parallel()
	in := `{"model":"m", "max_tokens": 100, "api_key":"sk-BODY-1",
  "auth":{"password":"hunter2","client_secret":"cs-2","nested":[{"session_token":"st-3"}]},
  "messages":[{"role":"user","content":[{"type":"image_url","image_url":{"url":"https://b.s3.amazonaws.com/x.png?X-Amz-Credential=AKIA4%2F20260101&X-Amz-Signature=f00d&w=1#top"}},
    {"type":"text","text":"see <https://h.example/a?token=tk-4&q=cats> and \u00e9"}]}],
  "empty_key":"", "stream":true}`
	out, removed := JSON([]byte(in))
	for _, s := range []string{"sk-BODY-1", "hunter2", "cs-2", "st-3", "AKIA4", "f00d", "tk-4"} {
		if strings.Contains(string(out), s) {
			t.Errorf("the body keeps %q:\n%s", s, out)
		}
	}
	want := strings.NewReplacer(`"sk-BODY-1"`, `"REDACTED"`, `"hunter2"`, `"REDACTED"`, `"cs-2"`, `"REDACTED"`, `"st-3"`, `"REDACTED"`,
		"AKIA4%2F20260101", "REDACTED", "=f00d", "=REDACTED", "tk-4", "REDACTED", `\u00e9`, "é").Replace(in) // a masked string is encoded again
	if string(out) != want {
		t.Errorf("JSON =\n%s\nwant\n%s", out, want)
	}
	wantRemoved := []string{"api_key", "client_secret", "password", "query X-Amz-Credential", "query X-Amz-Signature", "query token", "session_token"}
	if !slices.Equal(removed, wantRemoved) {
		t.Errorf("removed %q, want %q", removed, wantRemoved)
	}
	if !json.Valid(out) {
		t.Errorf("the masked body is not JSON:\n%s", out)
	}
	clean := `{"model":"m","max_tokens":100,"messages":[{"role":"user","content":"hi https://h.example/?q=1"}]}`
	if out, removed := JSON([]byte(clean)); string(out) != clean || removed != nil {
		t.Errorf("a body with no secret came back %s, removed %q", out, removed)
	}
}

// A key a server echoes JSON-escaped (\/ for /, \u002b for +) is starred
// where the body spells it, escapes whole; the body stays JSON of the same
// length.
func TestJSONEscapedMasksAKeyOnlyAnEscapeHides(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{"sk-ab/cd+efKEY"})
	for _, c := range []struct{ in, want string }{
		{`{"error":{"message":"invalid key sk-ab\/cd+efKEY"}}`, `{"error":{"message":"invalid key ***************"}}`},
		{`data: {"m":"k=sk-ab\/cd\u002befKEY."}` + "\n\n", `data: {"m":"k=********************."}` + "\n\n"},
		{`{"m":"a\"b sk-ab/cd+efKEY"}`, `{"m":"a\"b **************"}`}, // whole, beside an escape
		{`{"m":"no key\/here"}`, `{"m":"no key\/here"}`},
	} {
		if got := string(m.JSONEscaped([]byte(c.in))); got != c.want {
			t.Errorf("JSONEscaped(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}

// A secret held in an array or an object under a secret-named member is
// masked too, every string under it at any depth, named by that member;
// a count under it stays.
func TestJSONMasksEveryStringUnderASecretMember(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ in, want, removed string }{
		{`{"api_key":["sk-abc123456789"]}`, `{"api_key":["REDACTED"]}`, "api_key"},
		{`{"password":{"value":"hunter2hunter2"}}`, `{"password":{"value":"REDACTED"}}`, "password"},
		{`{"cfg":{"client_secret":[{"v":["cs-1", 2]}], "user":"ann"}}`, `{"cfg":{"client_secret":[{"v":["REDACTED", 2]}], "user":"ann"}}`, "client_secret"},
		// A tool's parameters name fields: their schema stays, so a replay
		// sends a valid tool; a secret given as a property's value does not.
		{`{"parameters":{"properties":{"password":{"type":"string"},"keywords":{"type":"array","items":{"type":"string"}}}},"password":["pw-1"]}`,
			`{"parameters":{"properties":{"password":{"type":"string"},"keywords":{"type":"array","items":{"type":"string"}}}},"password":["REDACTED"]}`, "password"},
	} {
		out, removed := JSON([]byte(c.in))
		if string(out) != c.want || !slices.Equal(removed, []string{c.removed}) {
			t.Errorf("JSON(%s) = %s, removed %q; want %s, removed [%s]", c.in, out, removed, c.want, c.removed)
		}
	}
}

// A tool's JSON Schema names types and definitions, not secrets: "$defs",
// "definitions" and "properties" map names to schemas, and "type", "enum"
// and "$ref" hold schema words. Today's code starred the strings under
// "AuthConfig" and "TokenInfo", and a replay sent an invalid schema.
func TestJSONLeavesAToolsSchemaAlone(t *testing.T) {
	t.Parallel()
	in := `{"tools":[{"type":"function","function":{"name":"login","parameters":{"type":"object",` +
		`"$defs":{"AuthConfig":{"type":"object","properties":{"mode":{"type":"string"}}}},` +
		`"definitions":{"TokenInfo":{"type":"string","enum":["bearer","basic"]}},` +
		`"properties":{"auth":{"$ref":"#/$defs/AuthConfig"},"token":{"$ref":"#/definitions/TokenInfo"},"password":{"type":"string","enum":["a","b"]}}}}}]}`
	if out, removed := JSON([]byte(in)); string(out) != in || removed != nil {
		t.Errorf("JSON =\n%s\nremoved %q; want the schema as it came", out, removed)
	}
	secret := `{"auth":{"type":"bearer","token":"sk-TOK-1"},"api_key":"sk-K-2"}`
	out, _ := JSON([]byte(secret))
	if strings.Contains(string(out), "sk-TOK-1") || strings.Contains(string(out), "sk-K-2") {
		t.Errorf("a credential beside a schema word is kept: %s", out)
	}
}
