package main

import (
	"net/http"
	"os"
	"os/signal"
	"syscall"
	"testing"

	"github.com/driplab/drip/internal/memnet"
)

// TestMain starts os/signal's watcher outside any synctest bubble: run()
// asks for SIGINT and SIGTERM, and a watcher first started inside a bubble
// would belong to it and never exit.
func TestMain(m *testing.M) {
	c := make(chan os.Signal, 1)
	signal.Notify(c, syscall.SIGUSR2)
	signal.Stop(c)
	os.Exit(m.Run())
}

// serveInMemory serves h on an in-memory network and points every stream
// drip sends at it until the test ends; call it inside synctest.Test, so
// the fixture scenarios' waits pass on the bubble's clock. The URL's host
// is memnet.Host: whatever URL a test gives drip, the stream lands here.
// The dialer is the package's, so a test that calls it stays serial.
func serveInMemory(t *testing.T, h http.Handler) *memnet.Server {
	t.Helper()
	srv := memnet.NewServer(h)
	dial = srv.Dial
	t.Cleanup(func() {
		dial = nil
		srv.Close()
	})
	return srv
}
