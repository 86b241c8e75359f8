// Package redact keeps credentials out of everything drip prints or writes:
// the user info and secret query values of URLs, and credential headers.
// One list of names decides both, so a record, a report, an error message
// and a followed redirect agree on what a secret is (docs/security.md).
package redact

import (
	"net/http"
	"net/url"
	"strings"
)

// SecretNames are the parts of a name that mark a query parameter or a
// header as a secret: a name holding any of them, in any case, is one
// (api_key, X-Goog-Api-Key, access_token, X-Amz-Signature, Authorization,
// sessionid, …). Over-matching costs a redacted value; under-matching
// leaks a key.
var SecretNames = []string{
	"key", "token", "secret", "sig", "auth", "pass", "pwd",
	"credential", "code", "session", "cookie", "jwt", "bearer",
}

// Redacted replaces a secret value.
const Redacted = "REDACTED"

// IsSecret reports whether a query parameter or header name is a secret's.
func IsSecret(name string) bool {
	n := strings.ToLower(name)
	for _, s := range SecretNames {
		if strings.Contains(n, s) {
			return true
		}
	}
	return false
}

// What URL prints instead of a URL it does not show.
const (
	unparseable = "(unparseable URL)"
	opaque      = "(opaque URL, not shown)"
)

// URL drops credentials from a URL: its user info, and the values of query
// parameters whose names are secrets (see Query). A URL that does not
// parse is not printed at all, nor is an opaque one (scheme:rest, no //):
// u:sk-key@h:80 parses as scheme u, the key in its opaque rest.
func URL(raw string) string {
	if raw == unparseable || raw == opaque {
		return raw // what URL printed already: a file read back keeps it
	}
	u, err := url.Parse(raw)
	if err != nil {
		return unparseable
	}
	if u.Opaque != "" {
		return opaque
	}
	u.User = nil
	u.RawQuery = Query(u.RawQuery)
	u.Fragment, u.RawFragment = "", ""
	return u.String()
}

// Query redacts the values of secret parameters in a raw query string. It
// works on the raw text, splitting at & and ;, so a value that does not
// decode (key=sk-S%zz) or a pair url.ParseQuery would drop (key=sk-S;x=1)
// is redacted all the same; everything else is kept byte for byte.
func Query(raw string) string {
	q, _ := redactQuery(raw)
	return q
}

// redactQuery is Query, with the names of the parameters it redacted.
func redactQuery(raw string) (string, []string) {
	if raw == "" {
		return raw, nil
	}
	var (
		b     strings.Builder
		names []string
	)
	start := 0
	for i := 0; i <= len(raw); i++ {
		if i < len(raw) && raw[i] != '&' && raw[i] != ';' {
			continue
		}
		p, name := pair(raw[start:i])
		b.WriteString(p)
		if name != "" {
			names = append(names, name)
		}
		if i < len(raw) {
			b.WriteByte(raw[i])
		}
		start = i + 1
	}
	return b.String(), names
}

// pair redacts one name=value pair of a raw query, and names it (decoded)
// when it did.
func pair(p string) (string, string) {
	name, _, hasValue := strings.Cut(p, "=")
	decoded, err := url.QueryUnescape(name)
	if err != nil {
		decoded = name
	}
	if !hasValue || !IsSecret(decoded) {
		return p, ""
	}
	return name + "=" + Redacted, decoded
}

// DropCredentials deletes every credential header from h, in place: those
// whose names are secrets (Authorization, X-Api-Key, X-Goog-Api-Key,
// X-Amz-Security-Token, Cookie, …). A redirect drip follows to another
// origin carries none of them.
func DropCredentials(h http.Header) {
	for k := range h {
		if IsSecret(k) {
			delete(h, k)
		}
	}
}

// Header returns a copy of h with the value of every credential header
// replaced by Redacted, for storing or printing request headers.
func Header(h http.Header) http.Header {
	out := make(http.Header, len(h))
	for k, vs := range h {
		if IsSecret(k) {
			vs = []string{Redacted}
		} else {
			vs = append([]string(nil), vs...)
		}
		out[k] = vs
	}
	return out
}
