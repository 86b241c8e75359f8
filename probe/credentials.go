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

// frameText masks a stream's frames' text a channel at a time (the
// answer, the reasoning, the tool calls, the other frames' words), each one
// redact.TextStream in arrival order: a key said across answer frames with
// reasoning between them is one key in the answer's text, as a reader
// reads it. Nil (no credential on the request) masks nothing.
type frameText struct {
	m       *redact.Masker
	streams map[frameChannel]*redact.TextStream
}

type frameChannel struct {
	kind    record.Kind
	channel record.Channel
}

func newFrameText(m *redact.Masker) *frameText {
	if m == nil {
		return nil
	}
	return &frameText{m: m, streams: map[frameChannel]*redact.TextStream{}}
}

// next masks f's text as the next piece of its channel's text.
func (t *frameText) next(f *record.Frame) string {
	if t == nil {
		return f.Text
	}
	c := frameChannel{f.Kind, f.Channel}
	s, ok := t.streams[c]
	if !ok {
		s = t.m.Stream()
		t.streams[c] = s
	}
	return s.Next(f.Text)
}

// mask masks a frame's text, as the next piece of its channel's text (a
// key split across frames is masked too), and the server fields it
// carries, each whole; nil masks nothing.
func (t *frameText) mask(f *record.Frame) {
	if t == nil {
		return
	}
	f.Text = t.next(f)
	var server map[string]json.RawMessage
	for k, raw := range f.Server {
		if masked := t.m.Bytes(raw); !bytes.Equal(masked, raw) {
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

// MaskText masks frames' text in place as a live stream's is (a channel
// at a time in arrival order, so a key split across frames too), and
// reports whether it changed any.
func MaskText(frames []record.Frame, m *redact.Masker) bool {
	text, changed := newFrameText(m), false
	for i := range frames {
		masked := text.next(&frames[i])
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
