package relay

import (
	"context"
	"crypto/tls"
	"net"
	"net/http"

	"github.com/driplab/drip/record"
)

// clientConnKey holds, in a request's context, the connection it came on.
type clientConnKey struct{}

// WithClientConn is an http.Server's ConnContext that lets the proxy ask
// the kernel about each client's socket (Exchange.Downstream). Serve sets
// it, and a test server of the proxy's may too.
func WithClientConn(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(ctx, clientConnKey{}, c)
}

// clientSocket is the TCP socket under the request's connection. It is nil
// when the server did not say (no WithClientConn) or the connection is no
// TCP socket.
func clientSocket(r *http.Request) *net.TCPConn {
	c, _ := r.Context().Value(clientConnKey{}).(net.Conn)
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	tc, _ := c.(*net.TCPConn)
	return tc
}

// downstreamTCP is the kernel's account of the client's socket over one
// exchange. before is taken as the request came, and after as the response
// ended. The counters only grow, so their difference is the exchange's.
func downstreamTCP(before, after tcpCounters) *record.DownstreamTCP {
	if !before.ok || !after.ok {
		return nil
	}
	return &record.DownstreamTCP{
		RTTMS:         float64(after.rttUS) / 1e3,
		Retransmits:   int(after.totalRetrans - before.totalRetrans),
		Lost:          int(after.lost),
		RwndLimitedMS: float64(after.rwndLimitedUS-before.rwndLimitedUS) / 1e3,
		Spurious:      int(after.dsackDups - before.dsackDups),
	}
}
