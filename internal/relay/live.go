package relay

import (
	"bufio"
	"encoding/json"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
)

// Bounds on what the hops endpoint keeps, whatever its clients send.
const (
	// liveKept is how many streams' times the hops endpoint keeps after
	// they end, for a client that asks once its stream is over.
	liveKept = 1024
	// maxLiveID is the longest id kept. drip's own ids (a run id and a
	// number) are under 40 bytes, and 1,100 requests with 1 MB ids held
	// 3.2 GB.
	maxLiveID = 128
	// maxLiveReads is the reads kept across all streams, 16 bytes each.
	// Without it, 1,024 streams of 100k reads would hold 1.6 GB.
	maxLiveReads = 4 << 20
)

// live is the proxy's streams by id, for the hops endpoint. It is nil
// unless Options.Live.
type live struct {
	mu       sync.Mutex
	by       map[string]*hops.Relayed
	order    []string // ids in the order they began, for eviction
	reads    int      // the reads kept, across by
	maxReads int
}

func newLive() *live {
	return &live{by: map[string]*hops.Relayed{}, maxReads: maxLiveReads}
}

// begin starts an exchange's live times. It returns nil (nothing kept)
// without live, without an id or with one too long. An id kept already is
// refused. It is a client's claim, and a second stream making it must not
// take the first one's times (drip hops reports such an id ambiguous).
func (l *live) begin(id string) *hops.Relayed {
	if l == nil || id == "" || len(id) > maxLiveID {
		return nil
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if _, ok := l.by[id]; ok {
		return nil
	}
	lr := &hops.Relayed{ID: id}
	l.order = append(l.order, id)
	l.by[id] = lr
	if len(l.order) > liveKept {
		// The oldest finished stream goes first. A running one's client
		// may still be asking (drip watch --relay), and would get a 404.
		l.evict(max(slices.IndexFunc(l.order, func(id string) bool { return l.by[id].Done }), 0))
	}
	return lr
}

// evict drops the stream l.order[i].
func (l *live) evict(i int) {
	l.reads -= len(l.by[l.order[i]].Reads)
	delete(l.by, l.order[i])
	l.order = slices.Delete(l.order, i, i+1)
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

// read keeps one read of lr, up to perStream reads (as the record keeps
// them) and maxReads across streams. Past maxReads the oldest finished
// stream goes, and a stream with none to make room for it keeps no more,
// marked Cut.
func (l *live) read(lr *hops.Relayed, rd record.Read, perStream int) {
	if lr == nil {
		return
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	if lr.Cut || len(lr.Reads) >= perStream {
		return
	}
	for l.reads >= l.maxReads {
		i := slices.IndexFunc(l.order, func(id string) bool { return l.by[id].Done })
		if i < 0 {
			lr.Cut = true
			return
		}
		l.evict(i)
	}
	lr.Reads = append(lr.Reads, rd)
	l.reads++
}

// HopsHandler serves GET /hops/{id}. It answers with the stream's times as
// JSON (hops.Relayed, with no byte of any body and no header value), and
// 404 for an id the relay has not seen (or no longer keeps). Nil unless the
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
		// Copy under the lock and write outside it. Every stream's pump
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
		w.Header().Set("Content-Type", "application/json")
		writeRelayed(w, &snap)
	})
}

// writeRelayed writes rel as hops.Relayed's JSON, a read at a time through
// a small buffer. A client asking for a stream of 100k reads costs the
// relay the buffer, not a 3 MB answer held until the client reads it.
func writeRelayed(w http.ResponseWriter, rel *hops.Relayed) {
	bw := bufio.NewWriterSize(w, 16<<10)
	b := make([]byte, 0, 64)
	b = append(b, `{"id":`...)
	id, _ := json.Marshal(rel.ID) // a client's, under maxLiveID bytes, escaped as JSON escapes it
	b = append(b, id...)
	b = append(b, `,"headers_ms":`...)
	if rel.HeadersMS == nil {
		b = append(b, "null"...)
	} else {
		b = strconv.AppendFloat(b, *rel.HeadersMS, 'g', -1, 64)
	}
	bw.Write(append(b, `,"reads":[`...))
	for i, rd := range rel.Reads {
		b = b[:0]
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"t_ms":`...)
		b = strconv.AppendFloat(b, rd.TMS, 'g', -1, 64)
		b = append(b, `,"n":`...)
		b = strconv.AppendInt(b, int64(rd.N), 10)
		bw.Write(append(b, '}'))
	}
	bw.WriteString(`],"done":` + strconv.FormatBool(rel.Done) + `,"cut":` + strconv.FormatBool(rel.Cut) + "}\n")
	bw.Flush()
}
