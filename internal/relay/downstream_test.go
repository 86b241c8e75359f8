//go:build linux

package relay_test

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/record"
)

// The relay asks its kernel about both sockets of an exchange. A client
// that stops reading a long stream for a while fills its receive window,
// and the record says for how long; a client that reads along does not.
// Meanwhile the relay, blocked on that client, takes the upstream's
// segments late, and its own witness says by how much.
func TestTheRelayKeepsWhatItsKernelSawOfBothSockets(t *testing.T) {
	t.Parallel()
	event := "data: {\"choices\":[{\"delta\":{\"content\":\"" + strings.Repeat("x", 4000) + "\"}}]}\n\n"
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		for range 2000 { // 8 MB: more than the relay's buffers hold
			if _, err := io.WriteString(w, event); err != nil {
				return
			}
		}
	}))
	defer up.Close()
	u, _ := url.Parse(up.URL)
	var (
		mu   sync.Mutex
		recs []*record.Record
	)
	p := relay.New(context.Background(), relay.Options{Upstream: u, MaxBytes: 64 << 20}, func(r *record.Record) error {
		mu.Lock()
		recs = append(recs, r)
		mu.Unlock()
		return nil
	})
	srv := httptest.NewUnstartedServer(p)
	srv.Config.ConnContext = relay.WithClientConn
	// The relay's sockets to its clients get a small send buffer, as the
	// client's receive buffer is small: with the kernel's own, up to 4 MB,
	// the relay was blocked on its client only once that much had gone
	// out, late in the pause on a busy machine, and it then took the
	// upstream's bytes as little as 24 ms late.
	ln, err := (&net.ListenConfig{Control: sockopt(syscall.SO_SNDBUF, 16<<10)}).Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	defer srv.Close()

	for _, c := range []struct {
		rcvbuf int
		pause  time.Duration
	}{{0, 0}, {8 << 10, 400 * time.Millisecond}} {
		client := &http.Client{Transport: &http.Transport{DisableCompression: true, DialContext: (&net.Dialer{Control: sockopt(syscall.SO_RCVBUF, c.rcvbuf)}).DialContext}}
		resp, err := client.Post(srv.URL+"/v1/chat/completions", "application/json", strings.NewReader(`{"stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		br := bufio.NewReader(resp.Body)
		br.Peek(1)
		time.Sleep(c.pause) // the client stops reading: the point of the test, not a wait for timing
		io.Copy(io.Discard, br)
		resp.Body.Close()
	}
	p.Wait()
	mu.Lock()
	defer mu.Unlock()
	if len(recs) != 2 {
		t.Fatalf("%d records, want 2", len(recs))
	}
	reading, stopped := recs[0].Exchange.Downstream, recs[1].Exchange.Downstream
	if reading == nil || stopped == nil {
		t.Fatalf("downstream %+v, %+v: want both", reading, stopped)
	}
	// Retransmits are not asserted: a full 8 KiB buffer may drop a
	// segment, and on a busy loopback the kernel resends some anyway.
	if stopped.RwndLimitedMS < 200 || stopped.RTTMS <= 0 || stopped.Spurious > stopped.Retransmits {
		t.Errorf("a client that stopped reading for 400 ms: %+v, want the window full for 200 ms or more, a round trip and no more spurious retransmits than retransmits", *stopped)
	}
	t.Logf("reading along: %+v; stopped: %+v", *reading, *stopped)
	for _, r := range recs {
		if w := r.Witness; w == nil || len(w.Reads) != len(r.Exchange.Reads) || !w.Stamped || w.LagMaxMS == nil {
			t.Fatalf("the relay's witness of its upstream reads: %+v, want one stamped read for each of %d reads", w, len(r.Exchange.Reads))
		}
	}
	// The lag is behind the newest segment a read took, and segments kept
	// coming until the relay's receive buffer was full: less than 400 ms.
	if lag := *recs[1].Witness.LagMaxMS; lag < 50 {
		t.Errorf("a relay blocked 400 ms on its client took the upstream's bytes at most %.1f ms late, want 50 ms or more", lag)
	}
	t.Logf("the relay's lag behind its upstream socket at most: reading along %.1f ms, stopped %.1f ms", *recs[0].Witness.LagMaxMS, *recs[1].Witness.LagMaxMS)
	if reading.RwndLimitedMS >= stopped.RwndLimitedMS/2 {
		t.Errorf("a client that read along: window full %.1f ms, against %.1f ms for one that stopped", reading.RwndLimitedMS, stopped.RwndLimitedMS)
	}
}

// sockopt sets a socket's buffer option (SO_RCVBUF or SO_SNDBUF) to n
// bytes, or leaves it to the kernel when n is 0. A client's small receive
// buffer fills its window at once when it stops reading; a listener's
// send buffer passes to the sockets it accepts.
func sockopt(opt, n int) func(string, string, syscall.RawConn) error {
	return func(_, _ string, c syscall.RawConn) error {
		if n > 0 {
			c.Control(func(fd uintptr) { syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, n) })
		}
		return nil
	}
}
