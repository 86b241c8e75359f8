package redact

import (
	"bytes"
	"encoding/base64"
	"net/url"
	"slices"
	"strings"
)

// MinSecretLen is the shortest value a Masker hides. A shorter one (a
// scheme word, a flag) would blank ordinary text, and real keys, tokens
// and signatures are far longer.
const MinSecretLen = 8

// CredentialValues are the secrets one credential header's value holds.
// They are the whole value, each credential after a scheme word (Bearer,
// Basic, AWS4-HMAC-SHA256), the value of each name=value part (cookies,
// SigV4's Credential= and Signature=), a SigV4 credential's access key,
// and Basic's decoded `user:password` and its password alone. A server that echoes any of
// them in an error body must not have it written down.
func CredentialValues(v string) []string {
	out := []string{v}
	parts := strings.FieldsFunc(v, func(r rune) bool { return r == ' ' || r == ',' || r == ';' || r == '\t' })
	for i, p := range parts {
		if i == 0 && len(parts) > 1 && !strings.Contains(p, "=") {
			continue // the scheme
		}
		if _, val, ok := strings.Cut(p, "="); ok && val != "" && !strings.HasSuffix(p, "=") {
			p = val
		}
		out = append(out, p)
		if id, _, ok := strings.Cut(p, "/"); ok {
			out = append(out, id) // Credential=AKIA…/date/region/service/aws4_request
		}
		if i > 0 && strings.EqualFold(parts[0], "basic") {
			if b, err := base64.StdEncoding.DecodeString(p); err == nil {
				_, pass, _ := strings.Cut(string(b), ":")
				out = append(out, string(b), pass)
			}
		}
	}
	return out
}

// URLValues are the secrets a URL holds, its user info (as Go's client
// sends it too, in a Basic Authorization header) and the values of its
// secret query parameters (IsSecret).
func URLValues(raw string) []string {
	u, err := url.Parse(raw)
	if err != nil {
		return nil
	}
	var out []string
	if u.User != nil {
		pass, _ := u.User.Password()
		basic := u.User.Username() + ":" + pass
		out = append(out, u.User.Username(), pass, u.User.String(), basic, base64.StdEncoding.EncodeToString([]byte(basic)))
	}
	return append(out, QueryValues(u.RawQuery)...)
}

// QueryValues are the values of a raw query's secret parameters.
func QueryValues(rawQuery string) []string {
	var out []string
	for _, p := range strings.FieldsFunc(rawQuery, func(r rune) bool { return r == '&' || r == ';' }) {
		name, value, ok := strings.Cut(p, "=")
		if n, err := url.QueryUnescape(name); err == nil {
			name = n
		}
		if !ok || !IsSecret(name) {
			continue
		}
		out = append(out, value)
		if v, err := url.QueryUnescape(value); err == nil {
			out = append(out, v)
		}
	}
	return out
}

// Masker hides known secret values wherever they appear in text a server
// sent, such as an error body that echoes the key. Every byte of every
// occurrence, overlapping ones too, becomes '*', so lengths and
// offsets stay as they were.
type Masker struct {
	values []string
	raw    [][]byte // values as bytes, converted once so the read path allocates nothing
	eager  []bool   // values[i] holds no other value, so a TextStream masks its prefix at a piece's end
	keep   int      // the longest value's length - 1, which a TextStream carries
}

// NewMasker masks values of MinSecretLen bytes or more, and their
// URL-escaped forms. With none it is nil, which masks nothing and lets the
// probe's read path skip masking at once.
func NewMasker(values []string) *Masker {
	m := &Masker{}
	for _, v := range values {
		for _, form := range []string{v, url.QueryEscape(v), url.PathEscape(v)} {
			if len(form) >= MinSecretLen && !slices.Contains(m.values, form) {
				m.values = append(m.values, form)
			}
		}
	}
	if len(m.values) == 0 {
		return nil
	}
	for _, v := range m.values {
		m.raw = append(m.raw, []byte(v))
		m.keep = max(m.keep, len(v)-1)
		m.eager = append(m.eager, !slices.ContainsFunc(m.values, func(w string) bool {
			return len(w) < len(v) && strings.Contains(v, w)
		}))
	}
	return m
}

// String returns s with every secret masked.
func (m *Masker) String(s string) string {
	if m == nil {
		return s
	}
	for _, v := range m.values { // the usual case, no secret in s, copies nothing
		if strings.Contains(s, v) {
			b, _ := m.mask([]byte(s))
			return string(b)
		}
	}
	return s
}

// Bytes returns b with every secret masked. It is a copy when one was in
// it, and b itself when none was.
func (m *Masker) Bytes(b []byte) []byte {
	if out, ok := m.mask(b); ok {
		return out
	}
	return b
}

// BytesCut is Bytes for text that may have been cut off before its end
// (a response body kept up to --max-bytes, a stream that broke off inside
// an event). Where it ends with a secret's first MinPrefix bytes or more,
// those are masked too, as a TextStream masks a piece's end, because the
// rest of that secret never came to be masked with it.
func (m *Masker) BytesCut(b []byte) []byte {
	if m == nil {
		return b
	}
	out, copied := m.mask(b)
	if from := cutEnd(b, m.raw, m.eager); from < len(b) {
		if !copied {
			out = bytes.Clone(b)
		}
		copy(out[from:], bytes.Repeat([]byte{'*'}, len(b)-from))
	}
	return out
}

func (m *Masker) mask(b []byte) ([]byte, bool) {
	if m == nil {
		return b, false
	}
	var out []byte
	for _, v := range m.raw {
		for i := 0; i < len(b); {
			j := bytes.Index(b[i:], v)
			if j < 0 {
				break
			}
			if out == nil {
				out = bytes.Clone(b)
			}
			copy(out[i+j:], bytes.Repeat([]byte{'*'}, len(v)))
			i += j + 1
		}
	}
	if out == nil {
		return b, false
	}
	return out, true
}
