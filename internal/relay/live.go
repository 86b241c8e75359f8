package relay

import (
	"encoding/json"
	"net/http"
	"slices"
	"strings"
	"sync"

	"github.com/driplab/drip/internal/hops"
)

// liveKept is how many streams' times the hops endpoint keeps after they
// end, for a client that asks once its stream is over.
const liveKept = 1024

// live is the proxy's streams by id, for the hops endpoint; nil unless
// Options.Live.
type live struct {
	mu    sync.Mutex
	by    map[string]*hops.Relayed
	order []string // ids in the order they began, for eviction
}

// begin starts an exchange's live times; nil (nothing kept) without live
// or without an id.
func (l *live) begin(id string) *hops.Relayed {
	if l == nil || id == "" {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	lr := &hops.Relayed{ID: id}
	if _, ok := l.by[id]; !ok {
		l.order = append(l.order, id)
	}
	l.by[id] = lr
	if len(l.order) > liveKept {
		// A finished stream goes first, the oldest: a running one's client
		// may still be asking (drip watch --relay), and would get a 404.
		i := max(slices.IndexFunc(l.order, func(id string) bool { return l.by[id].Done }), 0)
		delete(l.by, l.order[i])
		l.order = slices.Delete(l.order, i, i+1)
	}
	return lr
}

// update changes lr under the lock the endpoint reads it with.
func (l *live) update(lr *hops.Relayed, f func(*hops.Relayed)) {
	if lr == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	f(lr)
}

// HopsHandler serves GET /hops/{id}: the stream's times (hops.Relayed:
// no byte of any body, no header value) as JSON, 404
// for an id the relay has not seen (or no longer keeps). Nil unless the
// proxy was made with Options.Live.
func (p *Proxy) HopsHandler() http.Handler {
	if p.live == nil {
		return nil
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		id, ok := strings.CutPrefix(r.URL.Path, "/hops/")
		if r.Method != http.MethodGet || !ok || id == "" {
			http.NotFound(w, r)
			return
		}
		// Copied under the lock, marshalled outside it: every stream's pump
		// takes the lock on each read, and a stream may hold 100k reads.
		// Reads are only appended, so their prefix is a snapshot.
		p.live.mu.Lock()
		lr, found := p.live.by[id]
		var snap hops.Relayed
		if found {
			snap = *lr
			snap.Reads = lr.Reads[:len(lr.Reads):len(lr.Reads)]
		}
		p.live.mu.Unlock()
		if !found {
			http.NotFound(w, r)
			return
		}
		b, _ := json.Marshal(&snap)
		w.Header().Set("Content-Type", "application/json")
		w.Write(b)
	})
}
