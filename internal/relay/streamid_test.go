package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// The stream id a client sends (X-Drip-Stream) is no credential: the
// upstream gets it and the record keeps it on the exchange, beside every
// credential of the same request, none of which the record holds.
func TestARecordKeepsTheStreamIDAndNoCredential(t *testing.T) {
	var upstreamGot string
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		upstreamGot = r.Header.Get(record.StreamHeader)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var buf bytes.Buffer
	w := record.NewWriter(&buf)
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error { return w.Write(r) })
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	sendWithID(t, p, proxy.URL, `{"model":"m","stream":true}`, "a1b2c3d4e5f6-7")
	if i := bytes.Index(buf.Bytes(), []byte("SECRET")); i >= 0 {
		t.Errorf("the recording holds a secret: …%s…", buf.Bytes()[max(i-80, 0):min(i+20, buf.Len())])
	}
	recs, _, err := record.ReadAll(&buf, stats.Rederive)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records (%v), want 1", len(recs), err)
	}
	if got := recs[0].Exchange.StreamKey(); got != "a1b2c3d4e5f6-7" || upstreamGot != "a1b2c3d4e5f6-7" {
		t.Errorf("the record's stream id %q, the upstream got %q: want a1b2c3d4e5f6-7 in both", got, upstreamGot)
	}
}

// The hops endpoint serves a stream's read times by its id while it runs
// and after, and nothing else: no byte of either body, no header value,
// no credential, whatever the request carried; an id it never saw is 404.
func TestTheHopsEndpointHoldsNoCredentialNorBody(t *testing.T) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL + "?token=" + upToken)
	p := relay.New(context.Background(), relay.Options{Upstream: u, Live: true}, func(*record.Record) error { return nil })
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	hopsSrv := httptest.NewServer(p.HopsHandler())
	defer hopsSrv.Close()
	sendWithID(t, p, proxy.URL, `{"model":"m","stream":true,"messages":[{"role":"user","content":"PROMPT-BODY-MARK"}]}`, "a1b2c3d4e5f6-9")
	get := func(path string) (int, string) {
		resp, err := rawClient.Get(hopsSrv.URL + path)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	code, body := get("/hops/a1b2c3d4e5f6-9")
	var lr hops.Relayed
	if err := json.Unmarshal([]byte(body), &lr); code != 200 || err != nil || !lr.Done || lr.HeadersMS == nil || len(lr.Reads) == 0 {
		t.Fatalf("GET /hops/ID: %d %q (%v): want the stream's times, done", code, body, err)
	}
	total := 0
	for _, rd := range lr.Reads {
		total += rd.N
	}
	if total != len(sse) {
		t.Errorf("the reads bring %d bytes, the upstream sent %d", total, len(sse))
	}
	for _, leak := range []string{"SECRET", "PROMPT-BODY-MARK", "Hello", "Bearer", "event-stream", "chat/completions", "Go-http-client"} {
		if strings.Contains(body, leak) {
			t.Errorf("the hops endpoint's answer holds %q: %s", leak, body)
		}
	}
	if code, _ := get("/hops/unknown-1"); code != http.StatusNotFound {
		t.Errorf("an id never seen: %d, want 404", code)
	}
	if relay.New(context.Background(), relay.Options{Upstream: u}, func(*record.Record) error { return nil }).HopsHandler() != nil {
		t.Error("a proxy not asked to keep times serves them")
	}
}

// sendWithID streams body through the proxy p (at base) with every
// credential a client may carry and the stream id, and waits for the
// record.
func sendWithID(t *testing.T, p *relay.Proxy, base, body, id string) {
	t.Helper()
	req, _ := http.NewRequest("POST", base+"/v1/chat/completions"+hostileQuery, strings.NewReader(body))
	for k, v := range hostileHeaders {
		req.Header.Set(k, v)
	}
	req.Header.Set(record.StreamHeader, id)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	p.Wait()
}
