package probe

import (
	"bytes"
	"encoding/json"
	"maps"
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/redact"
)

// IsCredentialHeader reports a request header that must never be written
// down: a secret by redact's one list of names (Authorization, x-api-key,
// x-goog-api-key, api-key, cookies, …), or any x-amz- header, which are
// parts of an AWS signature.
func IsCredentialHeader(name string) bool {
	return redact.IsSecret(name) || strings.HasPrefix(strings.ToLower(name), "x-amz-")
}

// StripQuerySecrets removes the query parameters whose names are secrets
// (Gemini's ?key=) from a raw query, and names what it removed.
func StripQuerySecrets(rawQuery string) (clean string, removed []string) {
	if rawQuery == "" {
		return "", nil
	}
	q, err := url.ParseQuery(rawQuery)
	if err != nil {
		return "", []string{"query (unparseable)"}
	}
	for k := range q {
		if redact.IsSecret(k) {
			removed = append(removed, "query "+k)
			q.Del(k)
		}
	}
	if removed == nil {
		return rawQuery, nil
	}
	slices.Sort(removed)
	return q.Encode(), removed
}

// RequestSecrets are the credential values req carries, as it is sent
// (the probe) or as it arrived (drip record's proxy):
// every credential header's (after -H, the environment's key and a
// signer), a URL-valued header's (a Referer's ?access_token=), and the
// URL's user info and secret query values. A server may echo any of them.
func RequestSecrets(req *http.Request) []string {
	out := redact.URLValues(req.URL.String())
	for k, vs := range req.Header {
		for _, v := range vs {
			switch {
			case IsCredentialHeader(k):
				out = append(out, redact.CredentialValues(v)...)
			case strings.Contains(v, "://"):
				out = append(out, redact.URLValues(v)...)
			}
		}
	}
	return out
}

// maskFrame masks a frame's text, as the next piece of the stream's text
// (a key split across frames is masked too), and the server fields it
// carries, each whole; with no credential on the request (m nil) it does
// nothing.
func maskFrame(f *record.Frame, m *redact.Masker, text *redact.TextStream) {
	if m == nil {
		return
	}
	f.Text = text.Next(f.Text)
	var server map[string]json.RawMessage
	for k, raw := range f.Server {
		if masked := m.Bytes(raw); !bytes.Equal(masked, raw) {
			if server == nil {
				server = maps.Clone(f.Server) // the decoder's map stays as it was
			}
			server[k] = masked
		}
	}
	if server != nil {
		f.Server = server
	}
}

// MaskText masks frames' text in place as a live stream's is (one
// redact.TextStream in arrival order, so a key split across frames too),
// and reports whether it changed any.
func MaskText(frames []record.Frame, m *redact.Masker) bool {
	text, changed := m.Stream(), false
	for i := range frames {
		masked := text.Next(frames[i].Text)
		changed = changed || masked != frames[i].Text
		frames[i].Text = masked
	}
	return changed
}

// maskServerWords masks what a record holds of the server's words besides
// its frames: the error message, Retry-After, the redirects' locations.
func maskServerWords(rec *record.Record, m *redact.Masker) {
	if e := rec.Error; e != nil {
		e.Message, e.RetryAfter = m.String(e.Message), m.String(e.RetryAfter)
	}
	for i := range rec.Redirects {
		rec.Redirects[i].To = m.String(rec.Redirects[i].To)
	}
}
