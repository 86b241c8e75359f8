package probe_test

import (
	"context"
	"net/http"
	"net/http/httptest"
	"sync"
	"testing"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// Each request carries its stream's key in X-Drip-Stream (run id and seq),
// so a relay's record can be matched with the client's; NoStreamID sends
// the request untouched, and a stream of no run sends none.
func TestStreamSendsItsStreamID(t *testing.T) {
	var (
		mu  sync.Mutex // the race detector sees no order in a reply over TCP
		got []string
	)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		got = append(got, r.Header.Get(record.StreamHeader)+"|"+r.Header.Get("X-Other"))
		mu.Unlock()
		w.Header().Set("Content-Type", "text/event-stream")
		w.Write([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\ndata: [DONE]\n\n"))
	}))
	defer srv.Close()
	u, f, _ := probe.ResolveURL(srv.URL, "auto")
	tg := probe.Target{URL: u, Format: f, Header: http.Header{"X-Other": {"kept"}}}
	for _, c := range []struct {
		o   probe.Options
		rec *record.Record
	}{
		{probe.Options{}, &record.Record{RunID: "a1b2c3", Seq: 7}},
		{probe.Options{NoStreamID: true}, &record.Record{RunID: "a1b2c3", Seq: 8}},
		{probe.Options{}, &record.Record{Seq: 9}},
	} {
		if r := probe.Stream(context.Background(), tg, c.o, c.rec, nil); r.Status != record.StatusComplete {
			t.Fatalf("status %s", r.Status)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"a1b2c3-7|kept", "|kept", "|kept"}
	if len(got) != len(want) {
		t.Fatalf("requests %q, want %q", got, want)
	}
	for i := range want {
		if got[i] != want[i] {
			t.Errorf("request %d: X-Drip-Stream|X-Other %q, want %q", i, got[i], want[i])
		}
	}
}
