package probe

import (
	"net/http"
	"net/url"
	"slices"
	"strings"

	"github.com/driplab/drip/internal/redact"
)

// IsCredentialHeader reports a request header that must never be written
// down. That is a secret by redact's one list of names (Authorization,
// x-api-key, x-goog-api-key, api-key, cookies, …), or any x-amz- header,
// since those are parts of an AWS signature.
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
// (the probe) or as it arrived (drip record's proxy). They are the value of
// every credential header (after -H, the environment's key and a signer),
// of a URL-valued header (a Referer's access_token parameter), and the
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
