// Package delayrelay is a second network path for tests: a loopback TCP
// relay that hands on every chunk it reads after a set delay with jitter,
// in order, and can hold a share of chunks longer — what netem would do,
// which this kernel lacks. Each direction has its own Path, so a round trip
// through the relay gains Up.Delay + Down.Delay.
package delayrelay

import (
	"io"
	"math/rand/v2"
	"net"
	"sync"
	"sync/atomic"
	"time"
)

// Path is what one direction of the relay adds to every chunk: Delay ±
// Jitter (uniform, never below zero), and Hold more on a HoldShare of the
// chunks (0.01: one in a hundred), as a lost segment's retransmission would.
type Path struct {
	Delay, Jitter, Hold time.Duration
	HoldShare           float64
}

// Config sets both directions: Up carries the request to the upstream,
// Down the response back. Seed makes the jitter and the held chunks the
// same from run to run.
type Config struct {
	Up, Down Path
	Seed     uint64
}

// Relay listens on loopback and relays each connection to its upstream.
type Relay struct {
	ln       net.Listener
	upstream string
	cfg      Config
	held     atomic.Int64
	seq      atomic.Uint64
	wg       sync.WaitGroup
	mu       sync.Mutex
	conns    map[net.Conn]struct{}
}

// Start listens on 127.0.0.1 at a free port and relays every connection to
// upstream (host:port) until Close.
func Start(upstream string, cfg Config) (*Relay, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	r := &Relay{ln: ln, upstream: upstream, cfg: cfg, conns: map[net.Conn]struct{}{}}
	r.wg.Add(1)
	go r.accept()
	return r, nil
}

// Addr is the relay's host:port.
func (r *Relay) Addr() string { return r.ln.Addr().String() }

// Held is how many chunks were held (Path.Hold) so far, both directions.
func (r *Relay) Held() int64 { return r.held.Load() }

// Close stops listening, closes every relayed connection and waits for the
// relay's goroutines to end.
func (r *Relay) Close() error {
	err := r.ln.Close()
	r.mu.Lock()
	for c := range r.conns {
		c.Close()
	}
	r.mu.Unlock()
	r.wg.Wait()
	return err
}

// track adds (or, with forget, removes) a connection Close must end.
func (r *Relay) track(forget bool, cs ...net.Conn) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, c := range cs {
		if forget {
			delete(r.conns, c)
		} else {
			r.conns[c] = struct{}{}
		}
	}
}

func (r *Relay) accept() {
	defer r.wg.Done()
	for {
		down, err := r.ln.Accept()
		if err != nil {
			return
		}
		up, err := net.Dial("tcp", r.upstream)
		if err != nil {
			down.Close()
			continue
		}
		r.track(false, down, up)
		r.wg.Add(1)
		go r.relay(down, up, r.seq.Add(1))
	}
}

// relay runs both directions of one connection and closes it when both end.
func (r *Relay) relay(down, up net.Conn, n uint64) {
	defer r.wg.Done()
	var both sync.WaitGroup
	both.Add(2)
	go r.pipe(up, down, r.cfg.Up, rand.New(rand.NewPCG(r.cfg.Seed, 2*n)), &both)
	go r.pipe(down, up, r.cfg.Down, rand.New(rand.NewPCG(r.cfg.Seed, 2*n+1)), &both)
	both.Wait()
	down.Close()
	up.Close()
	r.track(true, down, up)
}

// chunk is one read, due for writing at due; a nil data ends the direction.
type chunk struct {
	data []byte
	due  time.Time
}

// pipe copies src to dst, each chunk delayed by p. A chunk is never written
// before the one read ahead of it (TCP keeps order, so a late chunk holds
// back those behind it), and src's end half-closes dst once all is written.
func (r *Relay) pipe(dst, src net.Conn, p Path, rng *rand.Rand, done *sync.WaitGroup) {
	defer done.Done()
	q := make(chan chunk, 1<<14)
	go func() {
		defer close(q)
		var last time.Time
		buf := make([]byte, 32<<10)
		for {
			n, err := src.Read(buf)
			if n > 0 {
				due := time.Now().Add(r.delay(p, rng))
				if due.Before(last) {
					due = last
				}
				last = due
				q <- chunk{data: append([]byte(nil), buf[:n]...), due: due}
			}
			if err != nil {
				return
			}
		}
	}()
	for c := range q {
		time.Sleep(time.Until(c.due))
		if _, err := dst.Write(c.data); err != nil {
			src.Close()
			for range q {
			}
			return
		}
	}
	if tc, ok := dst.(*net.TCPConn); ok {
		tc.CloseWrite()
	} else {
		dst.Close()
	}
}

// delay draws one chunk's delay.
func (r *Relay) delay(p Path, rng *rand.Rand) time.Duration {
	d := p.Delay
	if p.Jitter > 0 {
		d += time.Duration(rng.Int64N(int64(2*p.Jitter)+1)) - p.Jitter
	}
	if p.HoldShare > 0 && rng.Float64() < p.HoldShare {
		d += p.Hold
		r.held.Add(1)
	}
	return max(d, 0)
}

var _ io.Closer = (*Relay)(nil)
