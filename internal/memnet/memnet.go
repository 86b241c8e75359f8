// Package memnet is an in-memory network for end-to-end tests. An HTTP
// server and drip's client talk through net.Pipe instead of sockets. Under
// testing/synctest a goroutine blocked on a pipe is durably blocked (a
// socket read is not), so the fake clock jumps over every wait a fixture
// scenario schedules. A 10 s stream takes microseconds and every timing is
// exact, whatever the machine's load.
//
//	synctest.Test(t, func(t *testing.T) {
//		srv := memnet.NewServer(fixtures.NewServer())
//		defer srv.Close()
//		o := probe.Options{Dial: srv.Dial}
//		rec := probe.Stream(ctx, probe.Target{URL: srv.URL + "/v1/chat/completions", …}, o, …)
//	})
//
// The server must be created inside the bubble and closed before it ends
// (synctest.Test waits for every goroutine the bubble started).
package memnet

import (
	"context"
	"errors"
	"net"
	"net/http"
	"sync"
)

// Addr is the address of every memnet endpoint.
type Addr struct{}

func (Addr) Network() string { return "memnet" }
func (Addr) String() string  { return "memnet" }

// Listener is a net.Listener whose connections come from Dial.
type Listener struct {
	conns chan net.Conn
	done  chan struct{}
	once  sync.Once
}

// Listen returns a listener with no socket behind it.
func Listen() *Listener {
	return &Listener{conns: make(chan net.Conn), done: make(chan struct{})}
}

// Accept waits for a Dial or Close.
func (l *Listener) Accept() (net.Conn, error) {
	select {
	case c := <-l.conns:
		return c, nil
	case <-l.done:
		return nil, net.ErrClosed
	}
}

// Close stops Accept and refuses later dials. Open connections stay open.
func (l *Listener) Close() error {
	l.once.Do(func() { close(l.done) })
	return nil
}

// Addr is memnet's one address.
func (l *Listener) Addr() net.Addr { return Addr{} }

// ErrRefused is what Dial returns once the listener is closed.
var ErrRefused = errors.New("memnet: connection refused")

// Dial connects to the listener, whatever network and address it is given.
// It has the signature of http.Transport.DialContext.
func (l *Listener) Dial(ctx context.Context, _, _ string) (net.Conn, error) {
	client, server := net.Pipe()
	select {
	case l.conns <- server:
		return client, nil
	case <-l.done:
		return nil, ErrRefused
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// Server serves an http.Handler over a Listener. It has httptest.Server's
// shape without a socket.
type Server struct {
	// URL has a host no resolver knows, so only Dial reaches it.
	URL      string
	Listener *Listener
	srv      *http.Server
	served   chan struct{}
}

// Host is the host name in every Server's URL.
const Host = "memnet.test"

// NewServer starts serving h.
func NewServer(h http.Handler) *Server {
	s := &Server{URL: "http://" + Host, Listener: Listen(), srv: &http.Server{Handler: h}, served: make(chan struct{})}
	go func() {
		defer close(s.served)
		s.srv.Serve(s.Listener)
	}()
	return s
}

// Dial connects to the server (http.Transport.DialContext's signature).
func (s *Server) Dial(ctx context.Context, network, addr string) (net.Conn, error) {
	return s.Listener.Dial(ctx, network, addr)
}

// Client is a plain HTTP client that reaches the server, for tests that
// talk to it directly.
func (s *Server) Client() *http.Client {
	return &http.Client{Transport: &http.Transport{DialContext: s.Dial, DisableCompression: true}}
}

// Close closes the listener and every connection, and waits for Serve to
// return. Handlers still running see their request's context canceled.
func (s *Server) Close() {
	s.srv.Close()
	<-s.served
}
