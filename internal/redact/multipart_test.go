package redact

import (
	"bytes"
	"mime/multipart"
	"testing"
)

// Multipart reads any bytes without panicking, and what it keeps holds no
// secret field's content: a body that parses as multipart still does, with
// every part named as before.
func FuzzMultipart(f *testing.F) {
	var b bytes.Buffer
	mw := multipart.NewWriter(&b)
	mw.SetBoundary("XyZ")
	mw.WriteField("model", "m")
	mw.WriteField("password", "PW-1")
	mw.Close()
	f.Add(b.Bytes(), "XyZ")
	f.Add([]byte("--XyZ\r\n\r\n"), "XyZ")
	f.Add([]byte("--XyZ\nContent-Disposition: form-data; name=\"password\"\n\nPW-2\n--XyZ--\n"), "XyZ")
	f.Fuzz(func(t *testing.T, body []byte, boundary string) {
		out, names := Multipart(body, boundary)
		if names == nil && !bytes.Equal(out, body) {
			t.Fatalf("nothing named, but the body changed")
		}
		before, after := parts(body, boundary), parts(out, boundary)
		if before == nil {
			return
		}
		if len(after) != len(before) {
			t.Fatalf("parts %q became %q", before, after)
		}
		for i, p := range after {
			if IsSecret(p.name) && p.content != Redacted {
				t.Fatalf("secret part %q kept %q", p.name, p.content)
			}
			if p.name != before[i].name {
				t.Fatalf("part %d named %q, was %q", i, p.name, before[i].name)
			}
		}
	})
}

type part struct{ name, content string }

// parts is what mime/multipart reads of b; nil when it cannot read it all.
func parts(b []byte, boundary string) []part {
	if boundary == "" {
		return nil
	}
	r := multipart.NewReader(bytes.NewReader(b), boundary)
	var out []part
	for {
		p, err := r.NextRawPart()
		if err != nil {
			if err.Error() == "EOF" {
				return out
			}
			return nil
		}
		var c bytes.Buffer
		if _, err := c.ReadFrom(p); err != nil {
			return nil
		}
		out = append(out, part{p.FormName(), c.String()})
	}
}
