package redact

import (
	"net/http"
	"strings"
	"testing"
)

func TestURL(t *testing.T) {
	cases := []struct{ in, want string }{
		{"http://h/p?key=sk-S%zz", "http://h/p?key=REDACTED"},
		{"http://h/p?key=sk-S;x=1", "http://h/p?key=REDACTED;x=1"},
		{"http://user:pw@h:8000/v1?alt=sse&key=AIza123#frag", "http://h:8000/v1?alt=sse&key=REDACTED"},
		{"http://h/p?API_KEY=a&Access-Token=b&pass=c&pwd=d&token=e&secret=f&sig=g&code=h&sessionid=i&X-Amz-Signature=j&X-Amz-Credential=k",
			"http://h/p?API_KEY=REDACTED&Access-Token=REDACTED&pass=REDACTED&pwd=REDACTED&token=REDACTED&secret=REDACTED&sig=REDACTED&code=REDACTED&sessionid=REDACTED&X-Amz-Signature=REDACTED&X-Amz-Credential=REDACTED"},
		{"http://h/p?%6Bey=sk-x", "http://h/p?%6Bey=REDACTED"}, // an escaped name is still a name
		{"http://h/p?%zzkey=sk-x&model=m", "http://h/p?%zzkey=REDACTED&model=m"},
		{"http://h/p?alt=sse&model=gpt&n=1", "http://h/p?alt=sse&model=gpt&n=1"},
		{"http://h/p?key", "http://h/p?key"},
		{"http://h/p?key=", "http://h/p?key=REDACTED"},
		{"http://h/%zz", "(unparseable URL)"},
		// Opaque (scheme:rest, no //): the rest may be a key, the "scheme" a user name.
		{"u:sk-secret@h:80", "(opaque URL, not shown)"},
		{"user:pw@host", "(opaque URL, not shown)"},
		{"user:pw@host:8080/v1?key=sk-x", "(opaque URL, not shown)"},
		{"mailto:user:pw@h?token=sk-x", "(opaque URL, not shown)"},
		{"http:sk-secret@h", "(opaque URL, not shown)"},
	}
	for _, c := range cases {
		got := URL(c.in)
		if got != c.want {
			t.Errorf("URL(%q) = %q, want %q", c.in, got, c.want)
		}
		if strings.Contains(got, "sk-") || strings.Contains(got, "AIza") || strings.Contains(got, "pw@") || strings.Contains(got, "user:") {
			t.Errorf("URL(%q) = %q keeps a secret", c.in, got)
		}
		// A record file holds what URL wrote, and its reader redacts the
		// target again: the second pass must keep it.
		if again := URL(got); again != got {
			t.Errorf("URL(URL(%q)) = %q, want %q", c.in, again, got)
		}
	}
}

func TestDropCredentialsAndHeader(t *testing.T) {
	h := http.Header{}
	for _, k := range []string{"Authorization", "Proxy-Authorization", "X-Api-Key", "Api-Key", "X-Goog-Api-Key", "X-Amz-Security-Token", "Cookie", "X-Session-Id"} {
		h.Set(k, "secret-"+k)
	}
	keep := []string{"Content-Type", "Accept", "Accept-Encoding", "Anthropic-Version", "X-Amz-Date", "X-Amz-Content-Sha256", "User-Agent"}
	for _, k := range keep {
		h.Set(k, "v")
	}
	red := Header(h)
	DropCredentials(h)
	if len(h) != len(keep) {
		t.Errorf("after DropCredentials: %v, want only %v", h, keep)
	}
	for _, k := range keep {
		if h.Get(k) != "v" || red.Get(k) != "v" {
			t.Errorf("%s: dropped %q, redacted copy %q; want v", k, h.Get(k), red.Get(k))
		}
	}
	for k, vs := range red {
		if strings.HasPrefix(vs[0], "secret-") {
			t.Errorf("Header kept %s: %q", k, vs[0])
		}
	}
}
