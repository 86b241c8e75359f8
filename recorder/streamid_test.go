package recorder_test

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/recorder"
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
	w := probe.NewWriter(&buf)
	p := recorder.New(context.Background(), recorder.Options{Upstream: u}, func(r *record.Record) { w.Write(r) })
	proxy := httptest.NewServer(p)
	defer proxy.Close()
	req, _ := http.NewRequest("POST", proxy.URL+"/v1/chat/completions"+hostileQuery, strings.NewReader(`{"model":"m","stream":true}`))
	for k, v := range hostileHeaders {
		req.Header.Set(k, v)
	}
	req.Header.Set(record.StreamHeader, "a1b2c3d4e5f6-7")
	resp, err := rawClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	p.Wait()
	if i := bytes.Index(buf.Bytes(), []byte("SECRET")); i >= 0 {
		t.Errorf("the recording holds a secret: …%s…", buf.Bytes()[max(i-80, 0):min(i+20, buf.Len())])
	}
	recs, _, err := probe.ReadRecords(&buf)
	if err != nil || len(recs) != 1 {
		t.Fatalf("%d records (%v), want 1", len(recs), err)
	}
	if got := recs[0].Exchange.StreamKey(); got != "a1b2c3d4e5f6-7" || upstreamGot != "a1b2c3d4e5f6-7" {
		t.Errorf("the record's stream id %q, the upstream got %q: want a1b2c3d4e5f6-7 in both", got, upstreamGot)
	}
}
