package probe

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/record"
)

// maxRedirects bounds a chain of redirects, as net/http's default does.
const maxRedirects = 10

// redirectError is a redirect drip refused; it names the redacted location.
type redirectError struct {
	status int
	to     string
	why    string
}

func (e *redirectError) Error() string {
	return fmt.Sprintf("HTTP %d redirect to %s not followed: %s", e.status, e.to, e.why)
}

// redirectPolicy is one stream's CheckRedirect. A redirect is followed only
// when it keeps the method and body (307, 308), never from https to http,
// and to another origin (scheme, host, port) only when follow is set, and
// then without any credential header. Each one followed goes in the record.
type redirectPolicy struct {
	rec    *record.Record
	follow bool
}

func (p *redirectPolicy) check(req *http.Request, via []*http.Request) error {
	status := req.Response.StatusCode
	to := redact.URL(req.URL.String())
	refuse := func(why string) error { return &redirectError{status: status, to: to, why: why} }
	cross := !SameOrigin(via[0].URL, req.URL)
	switch {
	case len(via) > maxRedirects:
		return refuse(fmt.Sprintf("more than %d redirects", maxRedirects))
	case status != http.StatusTemporaryRedirect && status != http.StatusPermanentRedirect:
		return refuse("following it would turn the POST into a GET without its body; give drip the new URL")
	case via[len(via)-1].URL.Scheme == "https" && req.URL.Scheme != "https":
		return refuse("it would downgrade https to http")
	case cross && !p.follow:
		return refuse("it goes to another origin (--follow-redirects follows it, without credentials)")
	}
	// net/http copies the first request's headers onto every hop and adds a
	// Referer holding the previous URL, query and all.
	req.Header.Del("Referer")
	if cross {
		redact.DropCredentials(req.Header)
	}
	p.rec.Redirects = append(p.rec.Redirects, record.Redirect{Status: status, To: to, CrossOrigin: cross})
	return nil
}

// SameOrigin compares scheme, host and port, with the scheme's default port
// for a URL that names none: the one rule for a redirect drip run follows
// and a Location drip record keeps.
func SameOrigin(a, b *url.URL) bool {
	return strings.EqualFold(a.Scheme, b.Scheme) && strings.EqualFold(a.Hostname(), b.Hostname()) && port(a) == port(b)
}

func port(u *url.URL) string {
	if p := u.Port(); p != "" {
		return p
	}
	if strings.EqualFold(u.Scheme, "https") {
		return "443"
	}
	return "80"
}
