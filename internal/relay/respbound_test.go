package relay_test

import (
	"context"
	"io"
	"net/http"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/record"
)

// Responses kept at once are bounded across exchanges, as request bodies
// are: 40 clients reading a long stream each held 64 MiB apiece (5.6 GB).
// Past the bound a record keeps what came before, marked limit, and every
// client still gets every byte.
func TestResponsesInFlightAreBounded(t *testing.T) {
	t.Parallel()
	const n, half = 4, 40 << 10
	var (
		arrived atomic.Int64
		release = make(chan struct{})
	)
	event := "data: {\"choices\":[{\"delta\":{\"content\":\"" + strings.Repeat("x", half) + "\"}}]}\n\n"
	base, records := proxyTo(t, context.Background(), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, event)
		w.(http.Flusher).Flush()
		if arrived.Add(1) == n {
			close(release)
		}
		<-release // every stream is half kept at once
		io.WriteString(w, event+"data: [DONE]\n\n")
	}), relay.Options{MaxResponsesInFlight: 128 << 10})
	var wg sync.WaitGroup
	for range n {
		wg.Go(func() {
			resp, err := rawClient.Post(base+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
			if err != nil {
				t.Error(err)
				return
			}
			defer resp.Body.Close()
			if b, _ := io.ReadAll(resp.Body); len(b) != 2*len(event)+len("data: [DONE]\n\n") {
				t.Errorf("a client got %d bytes, want all %d", len(b), 2*len(event)+len("data: [DONE]\n\n"))
			}
		})
	}
	wg.Wait()
	limited := 0
	for _, r := range records() {
		if r.Error != nil && r.Error.Class == record.ErrLimit && strings.Contains(r.Error.Message, "in flight") {
			limited++
		}
	}
	if limited == 0 {
		t.Errorf("%d streams of %d KiB each kept whole under a 128 KiB bound; want some marked limit, naming the bound", n, 2*half>>10)
	}
}
