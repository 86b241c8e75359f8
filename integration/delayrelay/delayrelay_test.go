package delayrelay

import (
	"bytes"
	"io"
	"net"
	"testing"
	"time"
)

// echoServer answers each connection by echoing what it reads, then closes
// its side when the client half-closes.
func echoServer(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { ln.Close() })
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				io.Copy(c, c)
			}()
		}
	}()
	return ln.Addr().String()
}

// TestRelayKeepsOrderAndAddsAtLeastTheDelay: the bytes come back whole and
// in order, never sooner than the two directions' delays less their jitter
// (a lower bound, which load can only lengthen), and the hold share holds.
func TestRelayKeepsOrderAndAddsAtLeastTheDelay(t *testing.T) {
	p := Path{Delay: 30 * time.Millisecond, Jitter: 10 * time.Millisecond, Hold: 50 * time.Millisecond, HoldShare: 1}
	r, err := Start(echoServer(t), Config{Up: p, Down: Path{Delay: 20 * time.Millisecond}, Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer r.Close()
	c, err := net.Dial("tcp", r.Addr())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	var want bytes.Buffer
	start := time.Now()
	for i := range 50 {
		line := []byte{byte('a' + i%26), '\n'}
		want.Write(line)
		if _, err := c.Write(line); err != nil {
			t.Fatal(err)
		}
	}
	c.(*net.TCPConn).CloseWrite()
	got, err := io.ReadAll(c)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("relayed %q, want %q", got, want.Bytes())
	}
	if el, least := time.Since(start), 20*time.Millisecond+20*time.Millisecond+50*time.Millisecond; el < least {
		t.Errorf("round trip took %v, under the %v the paths add at least", el, least)
	}
	if r.Held() == 0 {
		t.Error("HoldShare 1 held no chunk")
	}
}
