package relay_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/relay"
)

// TestServedRecordingIsTheBytesTheClientGot: in every format (Bedrock's
// binary event stream among them) a client through drip record gets the
// fixture server's bytes, and drip fixtures serve --from serves the
// recording back as the same bytes, status and content type, whichever
// order the requests come in.
func TestServedRecordingIsTheBytesTheClientGot(t *testing.T) {
	base, records := proxyTo(t, context.Background(), fixtures.NewServer(), relay.Options{})
	type got struct {
		status           int
		contentType      string
		body             []byte
		method, uri, req string
	}
	sent := map[string]got{}
	for _, name := range adapters.Names() {
		method, uri, body := formatRequest(t, name)
		status, ct, resp := fetch(t, method, base+uri, body)
		if status != 200 || len(resp) == 0 {
			t.Fatalf("%s through drip record: %d, %d bytes", name, status, len(resp))
		}
		sent[name] = got{status, ct, resp, method, uri, body}
	}
	recs := records()
	if len(recs) != len(sent) {
		t.Fatalf("%d records for %d exchanges", len(recs), len(sent))
	}
	served, err := fixtures.NewRecorded(recs, fixtures.RecordedOptions{Speed: 1000})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(served)
	t.Cleanup(srv.Close)
	names := adapters.Names()
	for i := range names { // backwards: matched by body, not in turn
		name := names[len(names)-1-i]
		want := sent[name]
		status, ct, body := fetch(t, want.method, srv.URL+want.uri, want.req)
		if status != want.status || ct != want.contentType || !bytes.Equal(body, want.body) {
			t.Errorf("%s served back: %d %q, %d bytes (equal %v); the client through drip record got %d %q, %d bytes",
				name, status, ct, len(body), bytes.Equal(body, want.body), want.status, want.contentType, len(want.body))
		}
	}
}

// formatRequest is a streaming request in a format, each with a prompt of
// its own (served recordings are told apart by body).
func formatRequest(t *testing.T, name string) (method, uri, body string) {
	f := adapters.Lookup(name)
	uri = strings.ReplaceAll(f.Path, "{model}", "fast")
	if f.Path == "" {
		uri = "/generic/stream?format=" + name
	}
	b, err := f.Body(adapters.Request{Model: "fast", Prompt: "hi in " + name})
	if err != nil {
		t.Fatal(err)
	}
	return http.MethodPost, uri, string(b)
}

func fetch(t *testing.T, method, url, body string) (int, string, []byte) {
	t.Helper()
	req, _ := http.NewRequest(method, url, strings.NewReader(body))
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, resp.Header.Get("Content-Type"), b
}

// A recorded redirect is served back with its Location, so a client
// follows it as it followed the upstream's; the Location keeps no
// credential (its secret query value and user info are redacted), and the
// response's cookie is neither recorded nor served.
func TestServedRedirectKeepsItsLocation(t *testing.T) {
	const secret = "sk-LOCATION-0123456789"
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Location", "http://user:"+secret+"@example.test/v1/moved?key="+secret+"&region=eu")
		w.Header().Set("Set-Cookie", "session="+secret)
		w.WriteHeader(http.StatusTemporaryRedirect)
	}), relay.Options{})
	req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
	resp, err := rawClient.Transport.RoundTrip(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	recs := records()
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	const want = "http://example.test/v1/moved?key=REDACTED&region=eu"
	if got := recs[0].Exchange.Location; got != want {
		t.Errorf("recorded location %q, want %q", got, want)
	}
	served, err := fixtures.NewRecorded(recs, fixtures.RecordedOptions{Speed: 1000})
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(served)
	t.Cleanup(srv.Close)
	req, _ = http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
	resp, err = rawClient.Transport.RoundTrip(req) // not followed: the response itself is what is served
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusTemporaryRedirect || resp.Header.Get("Location") != want || resp.Header.Get("Set-Cookie") != "" {
		t.Errorf("served back %d, Location %q, Set-Cookie %q; want 307, %q and no cookie",
			resp.StatusCode, resp.Header.Get("Location"), resp.Header.Get("Set-Cookie"), want)
	}
}

// A redirect to the upstream's own origin is recorded as the client's
// path and query (the upstream's base path and own query taken off), so a
// client served the recording back follows it to the fixture server, not
// out to the upstream (production, with the client's key); a redirect to
// another origin is kept as it came, redacted (above).
func TestServedRedirectOnTheUpstreamComesBackToTheFixture(t *testing.T) {
	for _, c := range []struct {
		name, upstream string
		location       func(host string) string
		want           string
	}{
		{"absolute", "", func(host string) string { return "http://" + host + "/v1/moved?region=eu" }, "/v1/moved?region=eu"},
		{"under a base path", "/proxy?api-version=1", func(host string) string { return "http://" + host + "/proxy/v1/moved?api-version=1&region=eu" }, "/v1/moved?region=eu"},
		{"relative, under a base path", "/proxy?api-version=1", func(string) string { return "moved?region=eu" }, "/v1/chat/moved?region=eu"},
	} {
		t.Run(c.name, func(t *testing.T) {
			upstream, _ := url.Parse(c.upstream)
			var upstreamHits atomic.Int32
			base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				upstreamHits.Add(1)
				if strings.HasSuffix(r.URL.Path, "/moved") {
					w.Header().Set("Content-Type", "text/event-stream")
					io.WriteString(w, sse)
					return
				}
				w.Header().Set("Location", c.location(r.Host))
				w.WriteHeader(http.StatusTemporaryRedirect)
			}), relay.Options{Upstream: upstream})
			req, _ := http.NewRequest(http.MethodPost, base+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
			resp, err := rawClient.Transport.RoundTrip(req) // the redirect, then where it leads, both through drip record
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			status, _, _ := fetch(t, http.MethodPost, base+c.want, `{"model":"m","stream":true}`)
			recs := records()
			if resp.StatusCode != http.StatusTemporaryRedirect || status != 200 || len(recs) != 2 {
				t.Fatalf("through drip record: %d then %d, %d records; want 307 then 200, 2 records", resp.StatusCode, status, len(recs))
			}
			if got := recs[0].Exchange.Location; got != c.want {
				t.Errorf("recorded location %q, want %q", got, c.want)
			}
			served, err := fixtures.NewRecorded(recs, fixtures.RecordedOptions{Speed: 1000})
			if err != nil {
				t.Fatal(err)
			}
			srv := httptest.NewServer(served)
			t.Cleanup(srv.Close)
			before := upstreamHits.Load()
			req, _ = http.NewRequest(http.MethodPost, srv.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
			resp, err = rawClient.Do(req) // followed
			if err != nil {
				t.Fatal(err)
			}
			body, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.Request.URL.Host != strings.TrimPrefix(srv.URL, "http://") || string(body) != sse || upstreamHits.Load() != before {
				t.Errorf("the served redirect led to %s (fixture %s), %q, the upstream hit %d more times; want the fixture's %q, no hit",
					resp.Request.URL, srv.URL, body, upstreamHits.Load()-before, sse)
			}
		})
	}
}
