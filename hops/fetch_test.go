package hops

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

// The fetcher asks for a stream by its id, escaped, and says what a
// relay that has not seen it, or does not answer, means.
func TestFetcherAsksTheRelayByID(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.EscapedPath() != "/hops/a%2Fb" {
			http.NotFound(w, r)
			return
		}
		w.Write([]byte(`{"id":"a/b","reads":[{"ms":1,"n":3}],"done":true}`))
	}))
	u, _ := url.Parse(srv.URL + "/")
	fetch := Fetcher(u)
	rel, err := fetch(context.Background(), "a/b")
	if err != nil || rel.ID != "a/b" || !rel.Done || len(rel.Reads) != 1 {
		t.Fatalf("relayed %+v, %v", rel, err)
	}
	if _, err := fetch(context.Background(), "other"); err == nil || !strings.Contains(err.Error(), "HTTP 404: the relay has not seen this stream") {
		t.Errorf("an unknown stream: %v", err)
	}
	srv.Close()
	if _, err := fetch(context.Background(), "a/b"); err == nil || !strings.Contains(err.Error(), "the relay does not answer") {
		t.Errorf("a relay gone: %v", err)
	}
}

// ByRecord maps only the records a relay matched; a nil report maps none.
func TestByRecord(t *testing.T) {
	a, b := &record.Record{Seq: 1}, &record.Record{Seq: 2}
	rep := &Report{Streams: []Stream{{Seq: 1, ID: a.StreamKey()}}}
	if m := rep.ByRecord([]*record.Record{a, b}); len(m) != 1 || m[a] == nil {
		t.Errorf("ByRecord = %v, want only the first record", m)
	}
	if m := (*Report)(nil).ByRecord([]*record.Record{a}); m != nil {
		t.Errorf("a nil report maps %v", m)
	}
}
