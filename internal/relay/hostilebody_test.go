package relay_test

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"io"
	"mime/multipart"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/record"
)

// bodyCatcher is an upstream that keeps each request's path as sent and its
// body (gunzipped when the request says gzip), and answers a short stream.
type bodyCatcher struct {
	mu     sync.Mutex
	uris   []string
	bodies []string
}

func (c *bodyCatcher) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var in io.Reader = r.Body
	if r.Header.Get("Content-Encoding") == "gzip" {
		zr, err := gzip.NewReader(r.Body)
		if err != nil {
			http.Error(w, "bad gzip", http.StatusBadRequest)
			return
		}
		in = zr
	}
	b, _ := io.ReadAll(in)
	c.mu.Lock()
	c.uris = append(c.uris, r.RequestURI)
	c.bodies = append(c.bodies, string(b))
	c.mu.Unlock()
	w.Header().Set("Content-Type", "text/event-stream")
	io.WriteString(w, sse)
}

func (c *bodyCatcher) got() ([]string, []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.uris), slices.Clone(c.bodies)
}

// post sends body to url with the content type and extra headers given.
func post(t *testing.T, url, ctype string, body []byte, h http.Header) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	req.Header = h.Clone()
	if req.Header == nil {
		req.Header = http.Header{}
	}
	req.Header.Set("Content-Type", ctype)
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
}

// curl -d sends JSON as application/x-www-form-urlencoded. The body is
// masked as the JSON it is: today's code masked it as a form, so the kept
// body ended at the first secret-looking query value, a 200-byte slice of
// it became a name in exchange.removed, and a replay sent broken JSON.
func TestAJSONBodySentAsAFormIsMaskedAsJSON(t *testing.T) {
	t.Parallel()
	const sent = `{"model":"m","stream":true,"messages":[{"role":"user","content":"read https://b.s3.example/x?X-Amz-Signature=SIG-7&w=1 and summarise it"}],"max_tokens":32}`
	up := &bodyCatcher{}
	base, records := proxyTo(t, context.Background(), up, relay.Options{})
	post(t, base+"/v1/chat/completions", "application/x-www-form-urlencoded", []byte(sent), nil)
	recs := records()
	if len(recs) != 1 {
		t.Fatalf("%d records, want 1", len(recs))
	}
	x := recs[0].Exchange
	want := strings.Replace(sent, "SIG-7", "REDACTED", 1)
	if string(x.RequestBody()) != want || !slices.Equal(x.Removed, []string{"body query X-Amz-Signature"}) {
		t.Errorf("kept %s, removed %q; want %s, removed the signature's name", x.RequestBody(), x.Removed, want)
	}
	replay.Run(context.Background(), replay.Streams(recs), replay.Options{Against: base}, func(*record.Record) {})
	records()
	if _, bodies := up.got(); len(bodies) != 2 || bodies[1] != want {
		t.Errorf("replay sent %q, want the masked JSON", bodies[1:])
	}
}

// A Bedrock inference-profile ARN is percent-encoded in the path; one
// segment decoded becomes two, and a SigV4 signature no longer matches.
// The relay forwards and records the path byte for byte.
func TestAnEncodedPathIsForwardedByteForByte(t *testing.T) {
	t.Parallel()
	const path = "/model/arn%3Aaws%3Abedrock%3Aus-east-1%3A123456789012%3Ainference-profile%2Fus.anthropic.claude-v2/converse-stream"
	up := &bodyCatcher{}
	base, records := proxyTo(t, context.Background(), up, relay.Options{})
	post(t, base+path, "application/json", []byte(`{"messages":[]}`), nil)
	recs := records()
	uris, _ := up.got()
	if len(uris) != 1 || uris[0] != path {
		t.Errorf("upstream got %q, want %q", uris, path)
	}
	if len(recs) != 1 || recs[0].Exchange.Path != path {
		t.Errorf("the record keeps %q, want %q", recs[0].Exchange.Path, path)
	}
}

// A gzip'd JSON body holding api_key and the request's own key: today's
// code kept the gzip bytes as they came, nothing masked. The record keeps
// the body gzip'd still (so a replay sends what the upstream expects) but
// masked inside, and names what it masked.
func TestAGzipBodysSecretsNeverReachTheRecord(t *testing.T) {
	t.Parallel()
	const key = "sk-GZIPKEY-0123456789"
	sent := `{"model":"m","stream":true,"api_key":"sk-BODY-GZ-1","messages":[{"role":"user","content":"my key is ` + key + `"}]}`
	var z bytes.Buffer
	zw := gzip.NewWriter(&z)
	zw.Write([]byte(sent))
	zw.Close()
	up := &bodyCatcher{}
	base, records := proxyTo(t, context.Background(), up, relay.Options{})
	post(t, base+"/v1/chat/completions", "application/json", z.Bytes(),
		http.Header{"Authorization": {"Bearer " + key}, "Content-Encoding": {"gzip"}})
	recs := records()
	if _, bodies := up.got(); len(bodies) != 1 || bodies[0] != sent {
		t.Fatalf("upstream got %q, want the body as sent", bodies)
	}
	x := recs[0].Exchange
	kept := gunzipOrSelf(t, x.RequestBody())
	for _, s := range []string{"sk-BODY-GZ-1", key} {
		if strings.Contains(kept, s) || bytes.Contains(x.RequestBody(), []byte(s)) {
			t.Errorf("the record keeps %q: %s", s, kept)
		}
	}
	if !json.Valid([]byte(kept)) || !slices.Contains(x.Removed, "body api_key") {
		t.Errorf("kept %s, removed %q; want JSON with api_key named", kept, x.Removed)
	}
	replay.Run(context.Background(), replay.Streams(recs), replay.Options{Against: base}, func(*record.Record) {})
	records()
	if _, bodies := up.got(); len(bodies) != 2 || !strings.Contains(bodies[1], `"api_key":"REDACTED"`) {
		t.Errorf("replay sent %q, want the masked body, gzip'd as recorded", bodies[1:])
	}
}

// gunzipOrSelf is b gunzipped, or b when it is not gzip.
func gunzipOrSelf(t *testing.T, b []byte) string {
	t.Helper()
	zr, err := gzip.NewReader(bytes.NewReader(b))
	if err != nil {
		return string(b)
	}
	out, err := io.ReadAll(zr)
	if err != nil {
		t.Fatalf("the kept body is broken gzip: %v", err)
	}
	return string(out)
}

// A multipart form's client_secret and password fields are masked as a
// url-encoded form's are; its other parts are kept as they came.
func TestAMultipartBodysSecretFieldsAreMasked(t *testing.T) {
	t.Parallel()
	var body bytes.Buffer
	mw := multipart.NewWriter(&body)
	mw.WriteField("model", "whisper-1")
	mw.WriteField("client_secret", "CS-MULTI-1")
	mw.WriteField("password", "PW-MULTI-2")
	fw, _ := mw.CreateFormFile("file", "a.txt")
	fw.Write([]byte("hello audio"))
	mw.Close()
	up := &bodyCatcher{}
	base, records := proxyTo(t, context.Background(), up, relay.Options{})
	post(t, base+"/v1/audio/transcriptions", mw.FormDataContentType(), body.Bytes(), nil)
	recs := records()
	x := recs[0].Exchange
	kept := string(x.RequestBody())
	for _, s := range []string{"CS-MULTI-1", "PW-MULTI-2"} {
		if strings.Contains(kept, s) {
			t.Errorf("the record keeps %q", s)
		}
	}
	if !strings.Contains(kept, "whisper-1") || !strings.Contains(kept, "hello audio") {
		t.Errorf("kept %q, want the other parts as sent", kept)
	}
	if !slices.Equal(x.Removed, []string{"body client_secret", "body password"}) {
		t.Errorf("removed %q, want both fields named", x.Removed)
	}
	if _, err := multipart.NewReader(strings.NewReader(kept), mw.Boundary()).NextPart(); err != nil {
		t.Errorf("the kept body is no longer multipart: %v", err)
	}
}

// A chunked body that breaks the chunked framing is the client's mistake:
// 400 Bad Request, not the 408 a client that stalls gets.
func TestAMalformedChunkedBodyIsABadRequest(t *testing.T) {
	t.Parallel()
	base, _ := proxyTo(t, context.Background(), &bodyCatcher{}, relay.Options{})
	c, err := net.Dial("tcp", strings.TrimPrefix(base, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "POST /v1/chat/completions HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n{}\r\n0\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusBadRequest {
		t.Errorf("status %d, want 400", resp.StatusCode)
	}
}
