package probe

import (
	"cmp"
	"net/http"
	"sync"

	"github.com/driplab/drip/record"
)

// MaxConnecting is how many streams may be getting a connection at once,
// across the process. The rest wait their turn. 10,000 streams dialing at
// once overflowed the server's listen queue (somaxconn 4096 in that test).
// SYNs were dropped and retried 1, 3 and 7 s later, and 65 streams timed
// out connecting. A limit of 256 made 743 of 1,000 streams wait up to
// 0.45 s on a loaded machine, while 1,000 streams at once had never lost a
// connection. The wait is drip's, not the server's. So a stream that waited
// records it (connect_wait_ms), its request is sent and timed after it,
// and the summary counts the streams that waited.
const MaxConnecting = 1024

// connecting holds the process-wide turns, which every stream shares
// unless its Options.ConnectTurns are its own.
var connecting = make(chan struct{}, MaxConnecting)

// connectTurn waits for a turn to get a connection for req. The turn is a
// slot of turns, or of the process-wide ones when turns is nil. It returns
// the turn's release, which the request's trace calls when the transport
// has a connection (at once for a reused one), and which also serves for
// when the request is not sent or fails first. A stream that waited
// records the wait in rec.
func connectTurn(req *http.Request, clock Clock, turns chan struct{}, rec *record.Record) (func(), error) {
	turns = cmp.Or(turns, connecting)
	release := sync.OnceFunc(func() { <-turns })
	select {
	case turns <- struct{}{}:
	default:
		t0 := clock()
		select {
		case turns <- struct{}{}:
			rec.ConnectWaitMS = new(ms(clock().Sub(t0)))
		case <-req.Context().Done():
			return nil, req.Context().Err()
		}
	}
	return release, nil
}
