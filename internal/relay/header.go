package relay

import (
	"cmp"
	"net/http"
	"net/textproto"
	"net/url"
	"slices"
	"strings"

	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// hopByHopHeaders belong to one connection and are not forwarded (RFC 9110
// §7.6.1), nor are the headers a Connection header names.
var hopByHopHeaders = []string{"Connection", "Proxy-Connection", "Keep-Alive", "Proxy-Authenticate", "Proxy-Authorization", "Te", "Trailer", "Transfer-Encoding", "Upgrade"}

func hopByHop(name string, h http.Header) bool {
	name = textproto.CanonicalMIMEHeaderKey(name)
	if slices.Contains(hopByHopHeaders, name) {
		return true
	}
	for _, v := range h.Values("Connection") {
		for _, f := range strings.Split(v, ",") {
			if textproto.CanonicalMIMEHeaderKey(strings.TrimSpace(f)) == name {
				return true
			}
		}
	}
	return false
}

// forwardHeader is the client's request header as the upstream gets it. It
// holds everything but hop-by-hop headers, credentials included. Host comes
// from the upstream URL.
func forwardHeader(in http.Header) http.Header {
	out := http.Header{}
	for k, vs := range in {
		if !hopByHop(k, in) {
			out[k] = vs
		}
	}
	if _, ok := in["User-Agent"]; !ok {
		out["User-Agent"] = nil // Go's client adds none either
	}
	return out
}

// newExchange is the record's copy of a request's method, path and
// headers, with every credential dropped and named. finish keeps the body.
func newExchange(r *http.Request) *record.Exchange {
	x := &record.Exchange{Method: r.Method, Path: r.URL.EscapedPath()}
	q, removed := probe.StripQuerySecrets(r.URL.RawQuery)
	if q != "" {
		x.Path += "?" + q
	}
	for k, vs := range r.Header {
		switch {
		case probe.IsCredentialHeader(k):
			removed = append(removed, strings.ToLower(k))
		case hopByHop(k, r.Header) || k == "Content-Length" || k == "Accept-Encoding":
		default:
			if x.Header == nil {
				x.Header = map[string][]string{}
			}
			x.Header[k] = urlsRedacted(vs)
		}
	}
	if r.URL.User != nil {
		removed = append(removed, "url user info")
	}
	slices.Sort(removed)
	x.Removed = removed
	return x
}

// urlsRedacted is a kept header's values with any URL in them redacted. A
// Referer or Origin can carry a ?key= of its own.
func urlsRedacted(vs []string) []string {
	isURL := func(v string) bool { return strings.Contains(v, "://") }
	if !slices.ContainsFunc(vs, isURL) {
		return vs
	}
	out := slices.Clone(vs)
	for i, v := range out {
		if isURL(v) {
			out[i] = redact.URL(v)
		}
	}
	return out
}

// keptLocation is a response's Location as the record keeps it. One on
// the upstream's own origin and under its base path (resolved against the
// request sent to it) is kept as the client's path and query alone. The
// base path and the upstream's own query are taken off as upstreamURL
// added them. A client served the recording back then follows it back to
// the fixture server, not out to the upstream with its own headers. One
// on that origin but outside the base path is kept resolved, as an
// absolute URL. One on another origin is kept as it came.
// Every kept Location loses its user info and secret query values
// (redact.URL), and any byte of the request's credentials is starred. One
// that does not parse, or is opaque (such as a urn or mailto URL), is not
// kept.
func keptLocation(v string, sent, upstream *url.URL, mask *redact.Masker) string {
	if v == "" {
		return ""
	}
	loc, err := url.Parse(v)
	if err != nil || loc.Opaque != "" {
		return ""
	}
	if to := sent.ResolveReference(loc); probe.SameOrigin(to, sent) {
		v = to.String()
		// Outside the base path it stays absolute. So does a path of //,
		// which reads as another host's, as in //evil.example/x.
		if p, ok := strings.CutPrefix(to.EscapedPath(), strings.TrimRight(upstream.EscapedPath(), "/")); ok && (p == "" || p[0] == '/') && !strings.HasPrefix(p, "//") {
			v = cmp.Or(p, "/")
			if q := withoutParams(to.RawQuery, upstream.RawQuery); q != "" {
				v += "?" + q
			}
		}
	}
	return mask.String(redact.URL(v))
}

// withoutParams is a raw query without the parameters of own (the
// upstream's own query, each taken off once, as it was written).
func withoutParams(query, own string) string {
	if own == "" {
		return query
	}
	drop := strings.Split(own, "&")
	var kept []string
	for _, kv := range strings.Split(query, "&") {
		if i := slices.Index(drop, kv); i >= 0 {
			drop = slices.Delete(drop, i, i+1)
		} else {
			kept = append(kept, kv)
		}
	}
	return strings.Join(kept, "&")
}
