package relay_test

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/record"
)

// Credentials in a request body (secret JSON members at any depth, a
// presigned URL, a form's client_secret) reach the upstream as sent; the
// record keeps them Redacted, names them in exchange.removed, and a replay
// sends the mask. Today's code kept them verbatim.
func TestARecordMasksCredentialsInTheRequestBody(t *testing.T) {
	const sent = `{"model":"m","stream":true,"max_tokens":64,"api_key":"sk-BODYKEY-1","user":{"password":"PASS-2","client_secret":"CS-3"},` +
		`"messages":[{"role":"user","content":"see https://b.s3.example/x?X-Amz-Credential=AKIA4CRED&X-Amz-Signature=SIG-5&w=1"}]}`
	var mu sync.Mutex
	var got []string
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}), relay.Options{})
	for _, c := range []struct{ body, ctype string }{{sent, "application/json"}, {"grant_type=client_credentials&client_secret=FORM-6&stream=true", "application/x-www-form-urlencoded"}} {
		resp, err := rawClient.Post(base+"/v1/chat/completions", c.ctype, strings.NewReader(c.body))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	recs := records()
	if len(recs) != 2 || got[0] != sent {
		t.Fatalf("%d records, upstream got %q; want 2, the body as sent", len(recs), got)
	}
	line, _ := json.Marshal(recs)
	for _, s := range []string{"BODYKEY", "PASS-2", "CS-3", "AKIA4CRED", "SIG-5", "FORM-6"} {
		if bytes.Contains(line, []byte(s)) {
			t.Errorf("the record holds %q", s)
		}
	}
	x := recs[0].Exchange
	want := []string{"body api_key", "body client_secret", "body password", "body query X-Amz-Credential", "body query X-Amz-Signature"}
	if !slices.Equal(x.Removed, want) || !json.Valid(x.Body) || !strings.Contains(string(x.Body), `"max_tokens":64`) {
		t.Errorf("removed %q, body %s; want %q named, the body JSON, max_tokens kept", x.Removed, x.Body, want)
	}
	if f := recs[1].Exchange; !slices.Contains(f.Removed, "body client_secret") || !strings.Contains(string(f.RequestBody()), "client_secret=REDACTED") {
		t.Errorf("form: removed %q, body %q; want client_secret Redacted", f.Removed, f.RequestBody())
	}

	mu.Lock()
	got = nil
	mu.Unlock()
	replay.Run(context.Background(), replay.Streams(recs[:1]), replay.Options{Against: base}, func(*record.Record) {})
	records()
	if len(got) != 1 || !strings.Contains(got[0], `"api_key":"REDACTED"`) || strings.Contains(got[0], "BODYKEY") {
		t.Errorf("replay sent %q, want the masked body", got)
	}
}

// An upstream that echoes the client's key JSON-escaped (sk-ab\/cd) in an
// error body: the client gets it as it came; no record keeps it, in the
// body or the error, whether the exchange passed through (no stream asked
// for), was a stream that failed with a status, or a stream whose event
// quotes it. Today's code compared bytes and kept "sk-ab\/cd+efKEY".
func TestARecordMasksAKeyTheUpstreamEchoesEscaped(t *testing.T) {
	const key = "sk-ab/cd+efKEY-0123"
	escaped := strings.ReplaceAll(key, "/", `\/`)
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		msg := `{"error":{"message":"invalid key ` + escaped + `"}}`
		if strings.Contains(string(b), "instream") {
			w.Header().Set("Content-Type", "text/event-stream")
			io.WriteString(w, "data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: "+msg+"\n\n")
			return
		}
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(http.StatusUnauthorized)
		io.WriteString(w, msg)
	}), relay.Options{})
	for _, body := range []string{`{"model":"m"}`, `{"model":"m","stream":true}`, `{"model":"m","stream":true,"x":"instream"}`} {
		req, _ := http.NewRequest("POST", base+"/v1/chat/completions", strings.NewReader(body))
		req.Header.Set("Authorization", "Bearer "+key)
		resp, err := rawClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if b, _ := io.ReadAll(resp.Body); !strings.Contains(string(b), escaped) {
			t.Errorf("%s: the client got %q, want the upstream's body as it came", body, b)
		}
		resp.Body.Close()
	}
	recs := records()
	if len(recs) != 3 {
		t.Fatalf("%d records, want 3", len(recs))
	}
	for _, r := range recs {
		line, _ := json.Marshal(r)
		if bytes.Contains(line, []byte("ab")) && bytes.Contains(line, []byte("efKEY")) {
			t.Errorf("%s (%s): the record keeps the key: %s", r.Exchange.RequestBody(), r.Phase, line)
		}
		if !json.Valid([]byte(r.Exchange.Response)) && r.Exchange.Streamed == (r.HTTPStatus != 200) {
			t.Errorf("%s: the kept body is not JSON: %q", r.Exchange.RequestBody(), r.Exchange.Response)
		}
	}
}

// Uploads that together pass Options.MaxBodiesInFlight reach the upstream
// whole; the record keeps the bodies that fit and marks the others
// body_omitted, and once they are over the bound is whole again: a next
// body as long is kept. Today's code kept every body, however many.
func TestRequestBodiesInFlightAreBounded(t *testing.T) {
	const n, size = 4, 600 << 10
	var (
		arrived  atomic.Int64
		release  = make(chan struct{})
		received = make(chan int, n+1)
	)
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		received <- len(b)
		if arrived.Add(1) == n {
			close(release)
		}
		<-release // every upload is in flight at once
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, sse)
	}), relay.Options{MaxBodiesInFlight: 1 << 20})
	post := func() {
		body := `{"stream":true,"pad":"` + strings.Repeat("x", size) + `"}`
		resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(body))
		if err != nil {
			t.Error(err)
			return
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
	}
	var wg sync.WaitGroup
	for range n {
		wg.Go(post)
	}
	wg.Wait()
	kept := 0
	for _, r := range records() {
		if r.Exchange.BodyOmitted == "" {
			kept++
		} else if !strings.Contains(r.Exchange.BodyOmitted, "in flight") {
			t.Errorf("body_omitted %q, want the bound named", r.Exchange.BodyOmitted)
		}
	}
	if kept != 1 {
		t.Errorf("%d of %d bodies kept at once under a 1 MiB bound, want 1", kept, n)
	}
	post() // the others are written: the bound is whole again
	recs := records()
	if last := recs[len(recs)-1]; len(recs) != n+1 || last.Exchange.BodyOmitted != "" {
		t.Errorf("%d records, the last body omitted %q; want it kept", len(recs), last.Exchange.BodyOmitted)
	}
	close(received)
	for got := range received {
		if got != size+len(`{"stream":true,"pad":""}`) {
			t.Errorf("the upstream got %d bytes of a body, want all", got)
		}
	}
}
