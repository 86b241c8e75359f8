package probe

import (
	"errors"
	"fmt"
	"net/url"
	"strings"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/sanitize"
)

// DefaultFormat is what a bare base URL is taken to speak.
const DefaultFormat = "openai-chat"

// ParseHTTPURL parses a URL drip connects to, which must be http or https
// with a host. Its error starts with the input quoted as RedactURL shows
// it, for the caller to put its flag before. A host and port typed without
// a scheme is quoted as typed, since it has no user info or query and so
// no secret. The error adds the URL it likely means, which is http with a
// port and https without.
func ParseHTTPURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err == nil && u.Hostname() != "" && (u.Scheme == "http" || u.Scheme == "https") {
		return u, nil
	}
	if !strings.Contains(raw, "://") && !strings.ContainsAny(raw, "@?#") {
		if v, err := url.Parse("http://" + raw); err == nil && v.Hostname() != "" {
			if v.Port() == "" { // a bare host name is most often an API's
				v.Scheme = "https"
			}
			return nil, fmt.Errorf("%q: no scheme: want http(s)://host[:port][/path], e.g. %s", raw, v)
		}
	}
	if err == nil && strings.Contains(u.Opaque, "@") {
		// A URL of the form `u:key@host` parses as scheme u with the key in
		// its opaque part. RedactURL shows no opaque URL either, but this
		// says why.
		return nil, errors.New("(not shown: it may hold user info): want http(s)://host[:port][/path]")
	}
	return nil, fmt.Errorf("%q: want http(s)://host[:port][/path]", RedactURL(raw))
}

// ResolveURL picks the format and the full endpoint URL for a user's URL
// and --format ("auto" or a name), for formats whose endpoint does not name
// the model. See ResolveEndpoint.
func ResolveURL(raw, format string) (string, *adapters.Format, error) {
	return ResolveEndpoint(raw, format, "")
}

// ModelInEndpoint is whether ResolveEndpoint puts the model into the
// endpoint for u and f. It does when u has no path and f's endpoint path
// names {model}.
func ModelInEndpoint(u *url.URL, f *adapters.Format) bool {
	path, _, _ := strings.Cut(f.Path, "?")
	return strings.Trim(u.Path, "/") == "" && strings.Contains(path, "{model}")
}

// IsBaseURL is whether u is an OpenAI-compatible base URL as SDKs take it
// (OPENAI_BASE_URL). Its path ends in /v1 (vLLM, Ollama, Groq's
// /openai/v1) or is Gemini's OpenAI root, /v1beta/openai. ResolveEndpoint
// puts the endpoint of a format whose path starts /v1/ under it.
func IsBaseURL(u *url.URL) bool {
	p := strings.TrimRight(u.Path, "/")
	return strings.HasSuffix(p, "/v1") || strings.HasSuffix(p, "/v1beta/openai")
}

// ModelFromURL is the model an endpoint's path names (Gemini's
// `/models/M:streamGenerateContent`, Bedrock's /model/M/converse-stream),
// by the format's endpoint pattern. It is "" when the format's endpoint
// names none or the path does not follow it.
func ModelFromURL(endpoint string, f *adapters.Format) string {
	u, err := url.Parse(endpoint)
	pattern, _, _ := strings.Cut(f.Path, "?")
	before, after, ok := strings.Cut(pattern, "{model}")
	if err != nil || !ok || after == "" {
		return ""
	}
	segment := before[strings.LastIndexByte(strings.TrimSuffix(before, "/"), '/'):] // "/models/"
	_, rest, ok := strings.Cut(u.Path, segment)
	if !ok {
		return ""
	}
	model, _, ok := strings.Cut(rest, after[:1]) // up to the colon or the slash
	if !ok {
		return ""
	}
	return model
}

// EndpointHint says, for a 404, which path to try when the endpoint's
// path is not the format's own. That happens for a base URL typed in
// another form, or a server mounted elsewhere. It is "" when the path is the format's.
func EndpointHint(endpoint string, f *adapters.Format) string {
	u, err := url.Parse(endpoint)
	want := f.Path
	if want == "" {
		want = adapters.Lookup(DefaultFormat).Path
	}
	want, _, _ = strings.Cut(want, "?")
	if err != nil || strings.Contains(want, "{model}") || strings.HasSuffix(u.Path, want) {
		return ""
	}
	try := *u
	try.Path, try.RawPath, try.RawQuery = want, "", ""
	return fmt.Sprintf("no endpoint at %s? %s streams from %s: try %s, or the base URL ending in /v1", sanitize.Line(u.Path), hintFormat(f), want, RedactURL(try.String()))
}

// hintFormat is the format a hint names, which is the one drip would send.
func hintFormat(f *adapters.Format) string {
	if f.Path == "" {
		return DefaultFormat
	}
	return f.Name
}

// ResolveEndpoint picks the format and the full endpoint URL for a user's
// URL, --format ("auto" or a name) and model. A base URL without a path
// gets the format's endpoint path (with {model} filled in and its query,
// e.g. Gemini's alt=sse). With auto the path decides the format. A bare
// well-known host gets its own, and any other bare URL gets openai-chat. A
// path no format claims gets adapters.Auto, which picks the decoder from
// the response.
func ResolveEndpoint(raw, format, model string) (string, *adapters.Format, error) {
	u, err := ParseHTTPURL(raw)
	if err != nil {
		return "", nil, fmt.Errorf("bad URL %v", err)
	}
	bare := strings.Trim(u.Path, "/") == ""
	var f *adapters.Format
	switch {
	case format != "" && format != "auto":
		if f, err = adapters.Resolve(format); err != nil {
			return "", nil, err
		}
	case !bare && !IsBaseURL(u):
		if f = adapters.ForPath(u.Path); f == nil {
			f = adapters.Auto
		}
	default:
		// A base URL under a host's own API (Gemini's OpenAI root) speaks
		// OpenAI unless the host's format lives under /v1 too.
		if f = adapters.ForHost(u.Host); f == nil || !bare && !strings.HasPrefix(f.Path, "/v1/") {
			f = adapters.Lookup(DefaultFormat)
		}
	}
	path, query, _ := strings.Cut(f.Path, "?")
	if IsBaseURL(u) && strings.HasPrefix(path, "/v1/") {
		// In OPENAI_BASE_URL's form the endpoint goes under it.
		u.Path, u.RawPath = strings.TrimRight(u.Path, "/")+strings.TrimPrefix(path, "/v1"), ""
	}
	if bare {
		if path == "" {
			return "", nil, fmt.Errorf("format %s has no default endpoint: give the full URL", f.Name)
		}
		if ModelInEndpoint(u, f) {
			if model == "" {
				return "", nil, fmt.Errorf("format %s names the model in its endpoint: give -m MODEL or the full URL", f.Name)
			}
			esc := strings.ReplaceAll(url.PathEscape(model), ":", "%3A")
			u.RawPath = strings.TrimRight(u.Path, "/") + strings.ReplaceAll(path, "{model}", esc)
			path = strings.ReplaceAll(path, "{model}", model)
		}
		u.Path = strings.TrimRight(u.Path, "/") + path
		if u.RawPath != "" && u.EscapedPath() != u.RawPath {
			u.RawPath = "" // not a valid encoding of Path, so let url choose
		}
	}
	// The format's own query (alt=sse) is needed at any URL of it, unless
	// the user set those parameters.
	if query != "" {
		q := u.Query()
		fq, _ := url.ParseQuery(query)
		for k, v := range fq {
			if !q.Has(k) {
				q[k] = v
			}
		}
		u.RawQuery = q.Encode()
	}
	return u.String(), f, nil
}
