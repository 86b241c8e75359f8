package relay

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/record"
)

// hopsOn serves a proxy's hops endpoint on an in-memory listener, with
// one stream of 100k reads ("big"), until the test ends.
func hopsOn(t *testing.T) *memnet.Listener {
	p := &Proxy{live: newLive()}
	big := p.live.begin("big")
	for i := range 100_000 {
		p.live.read(big, record.Read{TMS: float64(i), N: 100}, 100_000)
	}
	ln := memnet.Listen()
	stop := p.serveHops(io.Discard, ln)
	t.Cleanup(stop)
	return ln
}

// A kept-alive client that says nothing more is let go within the idle
// timeout; one that never sends a request within the header timeout.
func TestTheHopsServerLetsIdleClientsGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := hopsOn(t)
		silent, _ := ln.Dial(context.Background(), "", "")
		kept, _ := ln.Dial(context.Background(), "", "")
		io.WriteString(kept, "GET /hops/none HTTP/1.1\r\nHost: x\r\n\r\n")
		resp, err := http.ReadResponse(bufio.NewReader(kept), nil)
		if err != nil || resp.StatusCode != http.StatusNotFound {
			t.Fatalf("GET /hops/none: %v, %v", resp, err)
		}
		io.Copy(io.Discard, resp.Body)
		start := time.Now()
		for name, c := range map[string]net.Conn{"silent": silent, "kept-alive": kept} {
			c.SetReadDeadline(start.Add(10 * time.Minute))
			if _, err := c.Read(make([]byte, 1)); err != io.EOF {
				t.Errorf("%s client: %v after %v, want the relay to close it (EOF)", name, err, time.Since(start))
			}
			c.Close()
		}
		if d := time.Since(start); d > hopsIdleTimeout {
			t.Errorf("idle clients let go after %v, want within %v", d, hopsIdleTimeout)
		}
	})
}

// Past hopsConns connections, the next waits to be accepted (in the
// kernel's backlog, on a socket) and holds none of the relay's files.
func TestTheHopsServerBoundsItsConnections(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := hopsOn(t)
		var conns []net.Conn
		for range hopsConns {
			c, _ := ln.Dial(context.Background(), "", "")
			conns = append(conns, c)
		}
		accepted := make(chan net.Conn)
		go func() {
			c, _ := ln.Dial(context.Background(), "", "")
			accepted <- c
		}()
		synctest.Wait()
		select {
		case c := <-accepted:
			c.Close()
			t.Errorf("connection %d accepted at once, want it to wait for one of the first %d to go", hopsConns+1, hopsConns)
		default:
		}
		for _, c := range conns {
			c.Close()
		}
		(<-accepted).Close()
	})
}

// A client that asks for a stream of 100k reads and never reads the
// answer holds its handler no longer than the write timeout: the relay
// closes the connection, and the client never gets the whole answer.
func TestTheHopsServerLetsANonReaderGo(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		ln := hopsOn(t)
		c, _ := ln.Dial(context.Background(), "", "")
		defer c.Close()
		io.WriteString(c, "GET /hops/big HTTP/1.1\r\nHost: x\r\n\r\n")
		time.Sleep(hopsWriteTimeout + time.Second) // the fake clock's: the client does not read
		c.SetReadDeadline(time.Now().Add(time.Minute))
		b, err := io.ReadAll(c)
		if err != nil || len(b) > 1<<20 {
			t.Errorf("a client that did not read for %v then got %d bytes (%v), want a few and the connection closed", hopsWriteTimeout, len(b), err)
		}
	})
}
