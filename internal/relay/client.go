package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driplab/drip/record"
)

// client is the proxy's side of one client's connection, and how long it
// waits on it. A read of the request body and a write of the response
// must each be done within the idle timeout, so a client that stalls its
// body, or stops reading, is let go. Nothing waits at all once the
// exchange is past its time or drip record stops. Then cut sets a deadline
// in the past, which ends a blocked read or write at once. The deadlines
// are the connection's, so they are real time, not the proxy's clock.
type client struct {
	rc   *http.ResponseController
	idle time.Duration
	mu   sync.Mutex
	over bool // set by cut, so every wait ends now
	done bool // the handler returned, so the connection is the server's again
	// deadline is the latest wait's end. A write that failed on a deadline
	// at or past it was the client's to take, whatever cut it after.
	deadline time.Time
}

func (p *Proxy) watchClient(w http.ResponseWriter) *client {
	return &client{rc: http.NewResponseController(w), idle: p.o.IdleTimeout}
}

// wait gives the next read or write (set) the idle timeout.
func (c *client) wait(set func(time.Time) error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done && !c.over {
		c.deadline = time.Now().Add(c.idle)
		set(c.deadline)
	}
}

// bodyRead lifts the read deadline once the body has come. net/http then
// reads on to see the client go away, and must not take a deadline for it.
func (c *client) bodyRead() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.done && !c.over {
		c.rc.SetReadDeadline(time.Time{})
	}
}

// cut ends every wait on the client now and from now on.
func (c *client) cut() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.done || c.over {
		return
	}
	c.over = true
	past := time.Unix(1, 0)
	c.rc.SetReadDeadline(past)
	c.rc.SetWriteDeadline(past)
}

// release hands the connection back to the server for its next request,
// without the write deadline the server would otherwise keep.
func (c *client) release() {
	c.mu.Lock()
	defer c.mu.Unlock()
	if !c.over {
		c.rc.SetWriteDeadline(time.Time{})
	}
	c.done = true
}

// gone is how the client's end of an exchange broke off, with err the
// failed write. The client may have read nothing for the idle timeout (the
// write's own deadline passed, not a cut). The exchange may be past its
// time or drip record stopping (ctx). Or the client went away.
func (c *client) gone(ctx context.Context, r *http.Request, err error) *record.Error {
	c.mu.Lock()
	// The server cancels the request once a write fails, and that cuts
	// the client. A cut after the deadline passed does not say who ended it.
	idle := !c.over || !time.Now().Before(c.deadline)
	c.mu.Unlock()
	switch {
	case errors.Is(err, os.ErrDeadlineExceeded) && idle:
		return &record.Error{Class: record.ErrCanceled, Message: "the client read nothing for the idle timeout: drip record let it go"}
	case ctx.Err() != nil:
		return classify(ctx, r, err)
	}
	return &record.Error{Class: record.ErrCanceled, Message: "the client closed the connection"}
}

// clientBody reads a request body within the client's deadlines.
type clientBody struct {
	r io.Reader
	c *client
}

func (b clientBody) Read(p []byte) (int, error) {
	b.c.wait(b.c.rc.SetReadDeadline)
	n, err := b.r.Read(p)
	if err == io.EOF {
		b.c.bodyRead()
	}
	return n, err
}

// budget is the request-body bytes all exchanges may keep at once.
type budget struct{ left atomic.Int64 }

// take reserves n bytes, if that many are left.
func (b *budget) take(n int) bool {
	for {
		left := b.left.Load()
		if left < int64(n) {
			return false
		}
		if b.left.CompareAndSwap(left, left-int64(n)) {
			return true
		}
	}
}

func (b *budget) give(n int) { b.left.Add(int64(n)) }

// readBody reads the request body the record keeps, within the client's
// deadlines (and none once drip record stops). It reads all of it, unless
// it is longer than maxRequestBody or the bodies in flight would pass their
// bound (Options.MaxBodiesInFlight). Then what was read and the rest
// (e.rest) are forwarded, none of it kept, and the record says why.
func (e *exchange) readBody(r *http.Request) error {
	stop := context.AfterFunc(e.p.ctx, e.conn.cut)
	defer stop()
	in := clientBody{r.Body, e.conn}
	switch n := r.ContentLength; {
	case n > maxRequestBody:
		e.omit(in, tooLong)
	case n >= 0: // its length known, it is kept whole or not at all
		if !e.p.bodies.take(int(n)) {
			e.omit(in, e.p.overBound())
			return nil
		}
		e.body, e.reserved = make([]byte, n), int(n)
		if _, err := io.ReadFull(in, e.body); err != nil {
			return err
		}
		e.conn.bodyRead()
	default:
		return e.readChunked(in)
	}
	return nil
}

// readChunked reads a body of unknown length, taking its room in the
// bound as it comes.
func (e *exchange) readChunked(in io.Reader) error {
	for {
		if len(e.body) == cap(e.body) {
			e.body = append(e.body, 0)[:len(e.body)]
		}
		chunk := min(cap(e.body)-len(e.body), readBufferSize, maxRequestBody+1-len(e.body))
		switch {
		case chunk == 0:
			e.omit(in, tooLong)
			return nil
		case !e.p.bodies.take(chunk):
			e.omit(in, e.p.overBound())
			return nil
		}
		n, err := in.Read(e.body[len(e.body) : len(e.body)+chunk])
		e.body = e.body[:len(e.body)+n]
		e.reserved += n
		e.p.bodies.give(chunk - n)
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return err
		}
	}
}

// bodyErrorStatus is the status a client gets for a request body that
// could not be read. It is 408 for one it stalled past the idle timeout,
// and 400 for one that broke its framing (a malformed chunk).
func bodyErrorStatus(err error) int {
	if errors.Is(err, os.ErrDeadlineExceeded) {
		return http.StatusRequestTimeout
	}
	return http.StatusBadRequest
}

// tooLong is body_omitted for a body longer than a record keeps.
var tooLong = fmt.Sprintf("over %d MiB: forwarded, not kept", maxRequestBody>>20)

// overBound is body_omitted for a body the bound on bodies in flight
// had no room for.
func (p *Proxy) overBound() string {
	return fmt.Sprintf("the request bodies in flight held %d MiB: forwarded, not kept", p.o.MaxBodiesInFlight>>20)
}

// omit forwards the rest of a body the record does not keep.
func (e *exchange) omit(rest io.Reader, why string) {
	e.rest, e.omitted = rest, why
}

// dropBody gives back what the exchange's body took of the bound.
func (e *exchange) dropBody() {
	e.body = nil
	e.p.bodies.give(e.reserved)
	e.reserved = 0
}
