package relay

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"time"

	"golang.org/x/net/netutil"

	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// ShutdownGrace is how long drip record waits, once stopped, for its
// clients' connections to close before it closes them.
const ShutdownGrace = 5 * time.Second

// Recording is where drip record's proxy serves and what it writes.
type Recording struct {
	Listener net.Listener       // the clients' (--listen)
	Hops     net.Listener       // the stream times' (--hops-addr), nil when not served
	Out      string             // the record file's name, for the lines on Stderr
	Records  *pipeline.Pipeline // each exchange's record, as it ends
	Stderr   io.Writer
	// Live is where the line of counts goes, rewritten in place when it
	// is a Terminal (drip's own line, not sanitized) and a new line for
	// each change elsewhere (a log).
	Live     io.Writer
	Terminal bool
}

// RecordsLost is drip record's failed write. Its exit, 3, stands after a
// signal too, for the file lacks exchanges the signal's code would not
// tell of.
type RecordsLost struct{ error }

// Unwrap is the write that failed.
func (e RecordsLost) Unwrap() error { return e.error }

// Serve runs the proxy on rec until ctx is done or a record cannot be
// written (the first lost record stops the proxy, as drip run stops),
// then waits for every exchange to be written and says how many were.
func Serve(ctx context.Context, rec Recording, o Options) error {
	pl := rec.Records
	ctx = pl.StopOnWriteError(ctx)
	p := New(ctx, o, func(r *record.Record) error { pl.Add(r); return pl.Err() })
	fmt.Fprintf(rec.Stderr, "drip record: http://%s → %s · writing %s\n  credentials are forwarded, never written · Ctrl-C stops\n",
		rec.Listener.Addr(), sanitize.Line(probe.RedactURL(o.Upstream.String())), sanitize.Line(rec.Out))
	stopHops := p.serveHops(rec.Stderr, rec.Hops) // its line after the proxy's first, which names the proxy's address
	defer stopHops()
	// A client is waited on for no longer than the idle timeout. That holds
	// for its headers, between requests on a kept-alive connection, and
	// (the proxy's own deadlines) for each read of its body and write of
	// its response.
	srv := &http.Server{Handler: p, ReadHeaderTimeout: min(10*time.Second, o.IdleTimeout), IdleTimeout: o.IdleTimeout, ConnContext: WithClientConn}
	served := make(chan error, 1)
	go func() { served <- srv.Serve(rec.Listener) }()
	stopLine := liveLine(rec.Live, &p.Stats, rec.Terminal)
	var err error
	select {
	case <-ctx.Done():
	case err = <-served:
	}
	if werr := pl.Err(); werr != nil {
		fmt.Fprintf(rec.Stderr, "drip record: writing records failed (%s): stopped accepting, canceling the exchanges in flight\n", sanitize.Line(werr.Error()))
	}
	p.stop(srv)
	stopLine()
	werr := pl.Finish()
	fmt.Fprintf(rec.Stderr, "drip record: %s written to %s%s\n", counts(&p.Stats), sanitize.Line(rec.Out), lost(&p.Stats))
	if err != nil && !errors.Is(err, http.ErrServerClosed) {
		return pipeline.Cannot(err)
	}
	if werr != nil {
		return RecordsLost{werr}
	}
	return nil
}

// stop stops the server and waits for every exchange to be written. The
// exchanges in flight see ctx done, end as canceled and wait on no client.
// Shutdown waits for their handlers, and past the grace period the
// connections still open are closed.
func (p *Proxy) stop(srv *http.Server) {
	sctx, cancel := context.WithTimeout(context.Background(), ShutdownGrace)
	defer cancel()
	if srv.Shutdown(sctx) != nil {
		srv.Close()
	}
	p.Wait()
}

// Bounds on the hops endpoint's clients. It serves a few small answers
// to drip watch, so none may hold the relay's files or memory for long.
const (
	// hopsConns is the connections served at once. More wait to be
	// accepted, in the kernel's backlog, holding none of the relay's
	// files (244 idle ones under ulimit -n 256 starved its clients).
	hopsConns = 64
	// hopsHeaderTimeout is how long a connection may take to send a
	// request's headers, the first or the next once it sends a byte.
	hopsHeaderTimeout = 5 * time.Second
	// hopsWriteTimeout is how long an answer may take to be read. 100k
	// reads are 3 MB, a moment's work on any path drip watch takes.
	hopsWriteTimeout = 10 * time.Second
	// hopsIdleTimeout is how long a kept-alive connection may wait for
	// its next request. drip watch asks every few hundred ms.
	hopsIdleTimeout = 30 * time.Second
	// hopsMaxHeader bounds a request's headers. A GET of an id under
	// maxLiveID bytes needs a few hundred.
	hopsMaxHeader = 8 << 10
)

// serveHops serves the proxy's stream times on ln until the returned
// stop is called. Without ln it serves nothing.
func (p *Proxy) serveHops(stderr io.Writer, ln net.Listener) (stop func()) {
	if ln == nil {
		return func() {}
	}
	srv := &http.Server{
		Handler:           p.HopsHandler(),
		ReadHeaderTimeout: hopsHeaderTimeout,
		ReadTimeout:       hopsHeaderTimeout, // a GET has no body to wait for
		WriteTimeout:      hopsWriteTimeout,
		IdleTimeout:       hopsIdleTimeout,
		MaxHeaderBytes:    hopsMaxHeader,
	}
	go srv.Serve(netutil.LimitListener(ln, hopsConns))
	fmt.Fprintf(stderr, "drip record: stream times for drip watch --relay on http://%s/hops/ID\n", ln.Addr())
	return func() { srv.Close() }
}

// lost names the exchanges whose records were not written, if any were.
func lost(s *Stats) string {
	if n := s.Lost.Load(); n > 0 {
		return fmt.Sprintf("; %s not written", stats.Count(int(n), "exchange"))
	}
	return ""
}

// counts is the record line's tally. Canceled streams are named only when
// there are some (a client went away, or Ctrl-C cut a stream in flight).
func counts(s *Stats) string {
	canceled := ""
	if n := s.Canceled.Load(); n > 0 {
		canceled = fmt.Sprintf(", %d canceled", n)
	}
	if n := s.Unread.Load(); n > 0 {
		canceled += fmt.Sprintf(", %s whose body never came whole", stats.Count(int(n), "request"))
	}
	return fmt.Sprintf("%s (%s, %d failed%s, %d passthrough)",
		stats.Count(int(s.Recorded.Load()), "exchange"), stats.Count(int(s.Streams.Load()), "stream"), s.Failed.Load(), canceled, s.Passthrough.Load())
}

// liveLine keeps one line on w with the exchange counts. The line is
// rewritten in place on a terminal, and elsewhere (a log) each change
// gets a new line.
func liveLine(w io.Writer, s *Stats, tty bool) (stop func()) {
	done, finished := make(chan struct{}), make(chan struct{})
	go func() {
		defer close(finished)
		t := time.NewTicker(200 * time.Millisecond)
		defer t.Stop()
		line := func() string { return fmt.Sprintf("  %s · %d in flight", counts(s), s.InFlight.Load()) }
		last := line() // nothing to say until something happens
		for {
			select {
			case <-done:
				if tty {
					fmt.Fprint(w, "\r\x1b[K")
				}
				return
			case <-t.C:
			}
			now := line()
			if now == last {
				continue
			}
			last = now
			if tty {
				fmt.Fprint(w, "\r\x1b[K"+now)
			} else {
				fmt.Fprintln(w, now)
			}
		}
	}()
	return func() { close(done); <-finished }
}
