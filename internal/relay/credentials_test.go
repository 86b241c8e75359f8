package relay_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// hostileUpstream echoes what it was sent where a real server might: an
// error body quoting every header and its own URL (/echo), an in-stream
// error quoting the key (/instream), Retry-After quoting it too (/echo), a redirect whose Location holds a key
// (/redirect), and a stream that sets a cookie (anything else).
func hostileUpstream(hits *atomic.Int64) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		switch {
		case strings.HasSuffix(r.URL.Path, "/echo"):
			var quoted []string
			for k, vs := range r.Header {
				quoted = append(quoted, k+": "+strings.Join(vs, ", "))
			}
			msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "Incorrect API key provided. You sent " + strings.Join(quoted, "; ") + " to " + r.URL.String()}})
			w.Header().Set("Content-Type", "application/json")
			w.Header().Set("Retry-After", r.Header.Get("Authorization"))
			w.WriteHeader(http.StatusUnauthorized)
			w.Write(msg)
		case strings.HasSuffix(r.URL.Path, "/instream"):
			w.Header().Set("Content-Type", "text/event-stream")
			msg, _ := json.Marshal(map[string]any{"error": map[string]string{"message": "bad key " + r.Header.Get("Authorization") + r.Header.Get("X-Api-Key")}})
			fmt.Fprintf(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: %s\n\n", msg)
		case strings.HasSuffix(r.URL.Path, "/redirect"):
			w.Header().Set("Location", "http://elsewhere.example/v1/chat/completions?key=sk-LOCATION-SECRET-1")
			w.WriteHeader(http.StatusTemporaryRedirect)
		default:
			w.Header().Set("Content-Type", "text/event-stream")
			w.Header().Set("Set-Cookie", "sid=SETCOOKIE-SECRET-2; HttpOnly")
			io.WriteString(w, sse)
		}
	})
}

// The secrets the clients and --upstream hold, and what each request of
// TestNoCredentialReachesTheRecord sends.
const (
	bearer   = "sk-BEARER-SECRET-3"
	upPass   = "UPSTREAM-PASS-SECRET-4"
	upToken  = "UPSTREAM-QUERY-SECRET-5"
	sigv4Sig = "f00dfeedSIGV4SECRET6"
)

var hostileHeaders = map[string]string{
	"Authorization":        "Bearer " + bearer,
	"X-Api-Key":            "sk-ant-XAPIKEY-SECRET-7",
	"X-Goog-Api-Key":       "AIza-GOOG-SECRET-8",
	"Api-Key":              "AZURE-APIKEY-SECRET-9",
	"Cookie":               "session=COOKIE-SECRET-10; theme=dark",
	"X-Amz-Security-Token": "AMZ-TOKEN-SECRET-11",
	"Proxy-Authorization":  "Basic " + base64.StdEncoding.EncodeToString([]byte("proxyuser:PROXY-SECRET-12")),
	"Referer":              "https://app.example/page?access_token=REFERER-SECRET-13",
}

// noFollow is a client that sees a redirect instead of following it.
var noFollow = &http.Client{
	Transport:     rawClient.Transport,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

const hostileQuery = "?key=QUERY-KEY-SECRET-14&api-key=QUERY-APIKEY-SECRET-15&X-Amz-Signature=QUERY-SIG-SECRET-16&alt=sse"

// TestNoCredentialReachesTheRecord sends every credential a client may
// carry, in headers, the query and --upstream's user info and query, to
// an upstream that echoes them back in an error body and an in-stream
// error and redirects with a key in the Location: the client gets what
// the upstream sent (the redirect not followed), and no record holds any
// secret, in any form the test knows of.
func TestNoCredentialReachesTheRecord(t *testing.T) {
	var hits atomic.Int64
	up := httptest.NewServer(hostileUpstream(&hits))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL + "/base?token=" + upToken)
	u.User = url.UserPassword("upuser", upPass)
	var (
		mu  sync.Mutex
		buf bytes.Buffer
	)
	w := record.NewWriter(&buf)
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error {
		mu.Lock()
		defer mu.Unlock()
		return w.Write(r)
	})
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)

	body := `{"model":"m","stream":true}`
	send := func(path string, h map[string]string) (*http.Response, []byte) {
		req, _ := http.NewRequest("POST", proxy.URL+path, strings.NewReader(body))
		for k, v := range h {
			req.Header.Set(k, v)
		}
		resp, err := noFollow.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		got, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		return resp, got
	}
	for _, path := range []string{"/v1/chat/completions", "/echo", "/instream"} {
		send(path+hostileQuery, hostileHeaders)
	}
	send("/echo", nil) // no Authorization: Go's client sends --upstream's user info as Basic
	sigv4 := map[string]string{"X-Amz-Date": "20260101T000000Z", "Authorization": "AWS4-HMAC-SHA256 Credential=AKIASIGV4KEYID17/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host;x-amz-date, Signature=" + sigv4Sig}
	send("/model/m/echo", sigv4)
	before := hits.Load()
	resp, _ := send("/redirect", hostileHeaders)
	if resp.StatusCode != http.StatusTemporaryRedirect || !strings.Contains(resp.Header.Get("Location"), "sk-LOCATION-SECRET-1") || hits.Load() != before+1 {
		t.Errorf("redirect: client got %d, Location %q, upstream hit %d times; want the 307 as it came, the upstream hit once",
			resp.StatusCode, resp.Header.Get("Location"), hits.Load()-before)
	}
	p.Wait()

	secrets := []string{"SECRET", base64.StdEncoding.EncodeToString([]byte("upuser:" + upPass)), "AKIASIGV4KEYID17"}
	for _, v := range hostileHeaders {
		if b64, ok := strings.CutPrefix(v, "Basic "); ok {
			secrets = append(secrets, b64)
		}
	}
	for _, s := range secrets {
		if i := bytes.Index(buf.Bytes(), []byte(s)); i >= 0 {
			t.Errorf("the recording holds %q: …%s…", s, buf.Bytes()[max(i-160, 0):min(i+40, buf.Len())])
		}
	}
	recs, _, err := record.ReadAll(&buf, stats.Rederive)
	if err != nil || len(recs) != 6 {
		t.Fatalf("%d records (%v), want 6", len(recs), err)
	}
	for _, r := range recs {
		switch {
		case strings.HasSuffix(r.Exchange.Path, "echo") && (r.Error == nil || !strings.Contains(r.Error.Message, "Incorrect API key provided") || !strings.Contains(r.Error.Message, "***")):
			t.Errorf("%s: error %+v, want the server's message with the keys masked", r.Exchange.Path, r.Error)
		case strings.HasPrefix(r.Exchange.Path, "/redirect") && (r.Error == nil || r.Error.Class != record.ErrRedirect):
			t.Errorf("%s: error %+v, want class redirect", r.Exchange.Path, r.Error)
		case strings.HasPrefix(r.Exchange.Path, "/v1/chat") && !slices.Contains(r.Exchange.Removed, "proxy-authorization"):
			t.Errorf("%s: removed %q, want proxy-authorization named (drip record --help says so)", r.Exchange.Path, r.Exchange.Removed)
		case strings.HasPrefix(r.Exchange.Path, "/v1/chat") && (r.Status != record.StatusComplete || r.Text() != "Hello world"):
			t.Errorf("%s: %s %q, want the stream complete (masking touched no text)", r.Exchange.Path, r.Status, r.Text())
		}
	}
}

// An upstream model that says the client's key split across frames: the
// client gets it as it came; the record's frames have it masked as drip
// run's are (the bytes before a split within its first redact.MinPrefix-1
// bytes show), and the kept body has the same bytes starred where it
// holds the frames' text as they are, else it is not kept and is named
// in exchange.removed.
func TestARecordMasksAKeySplitAcrossFrames(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	sse := func(pieces ...string) string {
		var b strings.Builder
		for _, p := range pieces {
			fmt.Fprintf(&b, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", p)
		}
		return b.String()
	}
	stars := strings.Repeat("*", len(key)-1)
	for _, c := range []struct {
		said, kept string // the upstream's body, the record's
		text       string
		removed    bool
	}{
		{said: sse("key ", "s", "k-Zq7v", "Xw9KpL3mNc8", "RtY2u", " ok"), kept: sse("key ", "s", stars[:6], stars[:11], stars[:5], " ok"), text: "key s" + stars + " ok"},
		// A frame whose text the body escapes ("): not found as it is.
		{said: sse("key ", "s", "k-Zq7vXw9KpL3mNc8RtY2u\" ok"), text: "key s" + stars + "\" ok", removed: true},
	} {
		rec, client := recordOne(t, relay.Options{}, c.said, key)
		if client != c.said {
			t.Errorf("the client got %q, want what the upstream sent, %q", client, c.said)
		}
		x := rec.Exchange
		if rec.Text() != c.text || x.Response != c.kept || slices.Contains(x.Removed, "response (a credential split across frames)") != c.removed || (len(x.Reads) == 0) != c.removed {
			t.Errorf("record text %q, body %q, %d reads, removed %q; want %q, %q, the body and reads removed %v", rec.Text(), x.Response, len(x.Reads), x.Removed, c.text, c.kept, c.removed)
		}
	}
}

// recordOne sends one streaming request with key as its Bearer token
// through a proxy (o, its upstream set) to an upstream that answers said,
// and returns the record and what the client got.
func recordOne(t *testing.T, o relay.Options, said, key string) (*record.Record, string) {
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, said)
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var got []*record.Record
	o.Upstream = u
	p := relay.New(context.Background(), o, func(r *record.Record) error { got = append(got, r); return nil })
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	req, _ := http.NewRequest("POST", proxy.URL+"/v1/chat/completions", strings.NewReader(`{"model":"m","stream":true}`))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	client, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	p.Wait()
	if len(got) != 1 {
		t.Fatalf("%d records, want 1", len(got))
	}
	return got[0], string(client)
}

// A prompt that quotes the request's own key (a user pasting it into the
// chat, a client echoing its config): the upstream gets the body as it was
// sent; the record keeps it with the key starred, JSON still, in both the
// raw and the URL-escaped form.
func TestARecordMasksTheKeyInTheRequestBody(t *testing.T) {
	const key = "sk-Zq7vXw9K/pL3mNc8RtY2u"
	sent := `{"model":"m","stream":true,"messages":[{"role":"user","content":"why is ` + key + ` refused? (` + url.QueryEscape(key) + `)"}]}`
	var upstreamGot atomic.Value
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		upstreamGot.Store(string(b))
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}))
	t.Cleanup(up.Close)
	u, _ := url.Parse(up.URL)
	var got []*record.Record
	p := relay.New(context.Background(), relay.Options{Upstream: u}, func(r *record.Record) error { got = append(got, r); return nil })
	proxy := httptest.NewServer(p)
	t.Cleanup(proxy.Close)
	req, _ := http.NewRequest("POST", proxy.URL+"/v1/chat/completions", strings.NewReader(sent))
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	p.Wait()
	if upstreamGot.Load() != sent {
		t.Errorf("the upstream got %q, want the body as sent, %q", upstreamGot.Load(), sent)
	}
	if len(got) != 1 {
		t.Fatalf("%d records, want 1", len(got))
	}
	kept := string(got[0].Exchange.RequestBody())
	want := strings.NewReplacer(key, strings.Repeat("*", len(key)), url.QueryEscape(key), strings.Repeat("*", len(url.QueryEscape(key)))).Replace(sent)
	if kept != want || got[0].Exchange.Body == nil {
		t.Errorf("the record keeps the request body %q (as JSON: %v), want %q", kept, got[0].Exchange.Body != nil, want)
	}
}
