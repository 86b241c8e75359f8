package relay

import (
	"net/url"
	"testing"
)

// A Location the fixture server can serve back is kept as the client's
// path; one that would lead elsewhere stays absolute, one no client can
// follow is not kept.
func TestKeptLocation(t *testing.T) {
	sent, _ := url.Parse("https://api.x.com/proxy/v1/chat/completions?api-version=1")
	upstream, _ := url.Parse("https://api.x.com/proxy/?api-version=1")
	for _, c := range []struct{ location, want string }{
		{"https://API.x.com:443/proxy/v1/moved?api-version=1&region=eu", "/v1/moved?region=eu"},
		{"moved", "/v1/chat/moved"},
		{"https://api.x.com/elsewhere/v1/moved", "https://api.x.com/elsewhere/v1/moved"},
		{"https://api.x.com/proxy//evil.example/x", "https://api.x.com/proxy//evil.example/x"},
		{"https://api.x.com:8443/proxy/v1/moved", "https://api.x.com:8443/proxy/v1/moved"},
		{"urn:x:y", ""},
		{"mailto:ops@x.com", ""},
	} {
		if got := keptLocation(c.location, sent, upstream, nil); got != c.want {
			t.Errorf("Location %q kept as %q, want %q", c.location, got, c.want)
		}
	}
	root, _ := url.Parse("https://api.x.com")
	sent, _ = url.Parse("https://api.x.com/v1/chat/completions")
	if got, want := keptLocation("https://api.x.com//evil.example/x", sent, root, nil), "https://api.x.com//evil.example/x"; got != want {
		t.Errorf("Location with a // path kept as %q, want %q", got, want)
	}
}
