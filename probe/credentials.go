package probe

import (
	"net/url"
	"slices"
	"strings"

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
