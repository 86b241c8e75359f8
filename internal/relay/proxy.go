// Package relay is drip record's streaming reverse proxy. It forwards a
// client's requests to an upstream unchanged, hands every upstream read to
// the client at once (a write and a flush per read, nothing buffered), and
// writes one record.Record per exchange. A record holds the frames with
// their upstream arrival times, the format detected from the stream, the
// status, the tokens, and the request (method, path, body, headers) for
// drip replay. A credential is never written down. It is forwarded,
// dropped from the record and named in Exchange.Removed.
package relay

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"net/http"
	"net/url"
	"runtime/debug"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Bounds on what one exchange may hold in memory.
const (
	// maxRequestBody bounds the request body a record keeps, which must be
	// held to be kept. A longer one is forwarded whole, not kept.
	maxRequestBody = 32 << 20
	// maxBodiesInFlight is Options.MaxBodiesInFlight's default. Without a
	// bound, 30 uploads of 33 MB at once would hold a gigabyte.
	maxBodiesInFlight = 256 << 20
	// maxResponsesInFlight is Options.MaxResponsesInFlight's default, the
	// size of eight streams at the default --max-bytes. 40 clients reading
	// a long stream each held 64 MiB apiece without it, 5.6 GB.
	maxResponsesInFlight = 512 << 20
	readBufferSize       = 32 << 10
)

var (
	errIdle    = errors.New("idle timeout")
	errTotal   = errors.New("total timeout")
	errStopped = errors.New("drip record stopped")
)

// Options configure a Proxy. Upstream is required.
type Options struct {
	Upstream    *url.URL
	Client      *http.Client // nil means probe.NewClient(0)
	Clock       probe.Clock  // nil means time.Now
	StallMS     float64      // 0 means stats.DefaultStall
	IdleTimeout time.Duration
	Timeout     time.Duration
	// MaxBytes and MaxFrames are drip run's per-stream bounds. Past
	// either the record keeps what came before and is marked limit, while
	// the client still gets every byte. Zero means probe's defaults.
	MaxBytes   int
	MaxFrames  int
	FrameLimit int // largest frame the decoders accept, 0 for theirs
	// MaxBodiesInFlight bounds the request-body bytes all exchanges keep
	// at once. A body that would pass it is forwarded, not kept. Zero
	// means 256 MiB.
	MaxBodiesInFlight int
	// MaxResponsesInFlight bounds the response bytes all exchanges keep
	// at once. Past it a record keeps what came before, marked limit,
	// and the client still gets every byte. Zero means 512 MiB.
	MaxResponsesInFlight int
	RunID                string
	// Live keeps each stream's read times by its record.StreamHeader id
	// while it runs, for HopsHandler (drip record --hops-addr).
	Live bool
}

// Stats count exchanges while the proxy runs, for its live line.
type Stats struct {
	Recorded    atomic.Int64 // exchanges written
	Lost        atomic.Int64 // exchanges whose record could not be written
	Unread      atomic.Int64 // requests whose body never came whole, neither forwarded nor recorded
	Streams     atomic.Int64 // of which streamed
	Passthrough atomic.Int64 // of which did not stream
	Failed      atomic.Int64 // streams recorded as failed
	Canceled    atomic.Int64 // streams recorded as canceled
	InFlight    atomic.Int64
}

// Proxy is the recording reverse proxy, an http.Handler.
type Proxy struct {
	o    Options
	ctx  context.Context
	sink func(*record.Record) error
	mu   sync.Mutex // serializes sink
	// bodies is what is left of MaxBodiesInFlight. held is the bytes of
	// bodies the exchanges written held, since memory was last returned.
	bodies    budget
	responses budget // what is left of MaxResponsesInFlight
	held      atomic.Int64
	returning atomic.Bool // a return of memory is under way
	start     time.Time
	seq       atomic.Int64
	wg        sync.WaitGroup
	Stats     Stats

	qmu      sync.Mutex // guards queue and draining
	queue    []*exchange
	draining bool // a drain goroutine runs

	// upstreamSecrets are --upstream's user info and secret query values,
	// masked in every record as the request's own credentials are.
	upstreamSecrets []string
	live            *live // nil unless Options.Live
	// wallClock says Options.Clock was nil. Reads are then stamped by the
	// clock the kernel stamps segments with, and the upstream can be
	// witnessed.
	wallClock bool
}

// New returns a proxy to o.Upstream. Every exchange's record goes to sink,
// one call at a time, as the exchange ends. An error from sink says the
// record was not written (Stats.Lost). When ctx is done, exchanges in
// flight are canceled and recorded as canceled, and no client is waited on.
func New(ctx context.Context, o Options, sink func(*record.Record) error) *Proxy {
	if o.Client == nil {
		o.Client = probe.NewClient(0)
	}
	// A redirect goes to the client as it came. Following it would answer
	// for the client, and a hop to another host would take its key along.
	c := *o.Client
	c.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
	o.Client = &c
	wallClock := o.Clock == nil
	if wallClock {
		o.Clock = time.Now
	}
	if o.StallMS <= 0 {
		o.StallMS = stats.DefaultStall
	}
	if o.IdleTimeout <= 0 {
		o.IdleTimeout = probe.DefaultIdleTimeout
	}
	if o.Timeout <= 0 {
		o.Timeout = probe.DefaultTimeout
	}
	if o.MaxBytes <= 0 {
		o.MaxBytes = probe.DefaultMaxBytes
	}
	if o.MaxFrames <= 0 {
		o.MaxFrames = probe.DefaultMaxFrames
	}
	if o.RunID == "" {
		o.RunID = probe.NewRunID()
	}
	if o.MaxBodiesInFlight <= 0 {
		o.MaxBodiesInFlight = maxBodiesInFlight
	}
	if o.MaxResponsesInFlight <= 0 {
		o.MaxResponsesInFlight = maxResponsesInFlight
	}
	p := &Proxy{o: o, wallClock: wallClock, upstreamSecrets: redact.URLValues(o.Upstream.String()), ctx: ctx, sink: sink, start: o.Clock()}
	p.bodies.give(o.MaxBodiesInFlight)
	p.responses.give(o.MaxResponsesInFlight)
	if o.Live {
		p.live = newLive()
	}
	return p
}

// Wait returns once every exchange begun has been handed to the sink.
func (p *Proxy) Wait() { p.wg.Wait() }

func (p *Proxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p.wg.Add(1)
	defer p.wg.Done()
	p.Stats.InFlight.Add(1)
	defer p.Stats.InFlight.Add(-1)
	c := p.watchClient(w)
	defer c.release()
	socket := clientSocket(r)
	before := socketCounters(socket)

	e := &exchange{p: p, conn: c, path: r.URL.Path, rawPath: r.URL.EscapedPath(), mask: redact.NewMasker(append(probe.RequestSecrets(r), p.upstreamSecrets...))}
	if err := e.readBody(r); err != nil {
		// Nothing was sent, so there is no exchange to record.
		e.dropBody()
		p.Stats.Unread.Add(1)
		if p.ctx.Err() == nil {
			http.Error(w, "drip record: reading the request body: "+err.Error(), bodyErrorStatus(err))
		}
		return
	}
	x := newExchange(r)
	x.BodyOmitted = e.omitted
	e.x = x
	e.rec = &record.Record{
		V: record.RecordVersion, RunID: p.o.RunID, Seq: int(p.seq.Add(1) - 1), Phase: record.PhaseMeasure, Exchange: x,
	}
	e.live = p.live.begin(x.StreamKey())
	e.run(w, r)
	x.Downstream = downstreamTCP(before, socketCounters(socket))
	if e.rest != nil {
		e.dropBody() // only a prefix, with no model, prompt or stream flag to find in it
		e.rest = nil
	}
	// Decoding and writing the record wait for no client. The handler
	// returns, ending the response (and freeing a kept-alive connection
	// for its next request), while they go on.
	p.enqueue(e)
	if e.cut {
		// Returning would end a chunked body cleanly, and a client would
		// take a reset upstream's half answer for a whole one. This aborts the
		// connection instead, as net/http/httputil's ReverseProxy does.
		panic(http.ErrAbortHandler)
	}
}

// enqueue hands a forwarded exchange to the one goroutine that builds and
// writes records, started when there is work. Streams that end together
// then take at most one core from the streams still forwarding.
func (p *Proxy) enqueue(e *exchange) {
	p.wg.Add(1)
	p.qmu.Lock()
	defer p.qmu.Unlock()
	p.queue = append(p.queue, e)
	if !p.draining {
		p.draining = true
		go p.drain()
	}
}

func (p *Proxy) drain() {
	for {
		p.qmu.Lock()
		if len(p.queue) == 0 {
			p.draining = false
			p.qmu.Unlock()
			p.returnMemory(returnAfter / 4)
			return
		}
		e := p.queue[0]
		p.queue[0] = nil
		p.queue = p.queue[1:]
		p.qmu.Unlock()
		e.finish()
		p.held.Add(int64(len(e.resp) + e.reserved))
		e.dropBody()
		e.dropResponse()
		p.emit(e.rec)
		p.wg.Done()
		p.returnMemory(returnAfter)
	}
}

// returnAfter is how many bytes of bodies the exchanges written may have
// held before free memory is returned to the system, a quarter of it when
// the queue of records has emptied. At GOGC 400 (gctune) and with no
// memory limit, the heap a burst of large exchanges grew stays resident
// until the next forced collection, minutes later, with nothing left in
// it. Without this, 30 uploads of 33 MB held 4.5 GB.
const returnAfter = 64 << 20

// returnMemory returns free memory to the system once the exchanges
// written since it last did held atLeast bytes. It runs a collection and
// a scavenge, one at a time, so the garbage of large bodies (the copies
// made to mask and write them) does not pile up to GOGC's five times the
// live heap, nor stay once they are written.
func (p *Proxy) returnMemory(atLeast int64) {
	if p.held.Load() < atLeast || !p.returning.CompareAndSwap(false, true) {
		return
	}
	p.held.Store(0)
	go func() {
		debug.FreeOSMemory()
		p.returning.Store(false)
	}()
}

func (p *Proxy) emit(rec *record.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.sink(rec) != nil {
		p.Stats.Lost.Add(1)
		return
	}
	p.Stats.Recorded.Add(1)
	if rec.Phase == record.PhasePassthrough {
		p.Stats.Passthrough.Add(1)
		return
	}
	p.Stats.Streams.Add(1)
	switch rec.Status {
	case record.StatusFailed:
		p.Stats.Failed.Add(1)
	case record.StatusCanceled:
		p.Stats.Canceled.Add(1)
	}
}

// upstreamURL joins the upstream's path with the client's, and their
// queries. The client's path is forwarded as it was written. An encoded
// %2F in a Bedrock ARN decoded would split one segment in two, and a
// signed request would no longer match its signature.
func (p *Proxy) upstreamURL(in *url.URL, rawQuery string) *url.URL {
	u := *p.o.Upstream
	u.Path = strings.TrimRight(u.Path, "/") + "/" + strings.TrimLeft(in.Path, "/")
	u.RawPath = strings.TrimRight(p.o.Upstream.EscapedPath(), "/") + "/" + strings.TrimLeft(in.EscapedPath(), "/")
	switch {
	case u.RawQuery == "":
		u.RawQuery = rawQuery
	case rawQuery != "":
		u.RawQuery += "&" + rawQuery
	}
	return &u
}

// promptID names a request by its body, so identical requests share an id
// (and drip compare's per-prompt panel) in the recording and its replay.
func promptID(body []byte) string {
	h := sha256.Sum256(body)
	return "req-" + hex.EncodeToString(h[:4])
}
