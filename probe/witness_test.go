package probe_test

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"runtime"
	"sync/atomic"
	"testing"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// sseFrame is one OpenAI chat-completions content frame.
func sseFrame(text string) string {
	return fmt.Sprintf("data: {\"choices\":[{\"index\":0,\"delta\":{\"content\":%q}}]}\n\n", text)
}

// writeBatches serves an OpenAI stream of batches, each batch one write
// (one segment on loopback), pause apart.
func writeBatches(batches []int, pause time.Duration) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		for i, n := range batches {
			if i > 0 {
				time.Sleep(pause)
			}
			var b []byte
			for j := range n {
				b = append(b, sseFrame(fmt.Sprintf("w%d.%d ", i, j))...)
			}
			w.Write(b)
			w.(http.Flusher).Flush()
		}
		fmt.Fprint(w, "data: [DONE]\n\n")
	}
}

// streamTCP streams srv's answer through the probe over real TCP.
func streamTCP(t *testing.T, url string, o probe.Options) *record.Record {
	t.Helper()
	u, f, err := probe.ResolveURL(url, "auto")
	if err != nil {
		t.Fatal(err)
	}
	tgt := probe.Target{URL: u, Format: f, Request: adapters.Request{Model: "m", Prompt: "hi"}}
	return probe.Stream(context.Background(), tgt, o, &record.Record{}, nil)
}

func TestWitnessSeesFramesMergedInOneSegment(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel witness is Linux's")
	}
	batches := []int{3, 3, 3, 3}
	srv := httptest.NewServer(writeBatches(batches, 20*time.Millisecond))
	defer srv.Close()
	// A busy machine can hold the server or the reader past a batch's 20
	// ms, and then one read takes two batches. Such a stream shows nothing
	// of the server's batches, so the test streams again, a few times.
	var rec *record.Record
	for attempt := 1; ; attempt++ {
		rec = streamTCP(t, srv.URL, probe.Options{})
		if rec.Reads > len(batches) || attempt == 5 {
			break
		}
		t.Logf("attempt again: %d reads for %d batches and the headers", rec.Reads, len(batches))
	}
	w := rec.Witness
	if w == nil {
		t.Fatal("no witness on a TCP connection")
	}
	if !w.Stamped || len(w.Reads) != rec.Reads {
		t.Fatalf("stamped %v, %d witnessed reads of %d", w.Stamped, len(w.Reads), rec.Reads)
	}
	t.Logf("witness %+v", *w)
	if w.SocketMerges < 4 || w.ReaderMerges != 0 {
		t.Errorf("socket merges %d, reader merges %d: want the batches merged before the socket", w.SocketMerges, w.ReaderMerges)
	}
	// One read in four may wait for a core on a busy machine (CI's race
	// run saw 60 ms), so the median lag is what shows an idle reader.
	if w.LagMaxMS == nil || w.LagP50MS == nil {
		t.Fatal("no lag from a stamped stream")
	}
	if *w.LagP50MS > 20 {
		t.Errorf("lag p50 %.3f ms (max %.3f) on an idle reader", *w.LagP50MS, *w.LagMaxMS)
	}
	at := map[string]bool{}
	for _, s := range w.TCP {
		at[s.At] = true
	}
	for _, want := range []string{record.TCPAtHeaders, record.TCPAtFirstContent, record.TCPAtEnd} {
		if !at[want] {
			t.Errorf("no TCP sample at %s: %+v", want, w.TCP)
		}
	}
}

func TestNoWitnessLeavesTheRecordWithout(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(writeBatches([]int{1, 1, 1}, 0))
	defer srv.Close()
	if rec := streamTCP(t, srv.URL, probe.Options{NoWitness: true}); rec.Witness != nil || !rec.Complete {
		t.Fatalf("witness %+v, complete %v", rec.Witness, rec.Complete)
	}
}

func TestWitnessReadsUnderTLSAndHTTP2(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel witness is Linux's")
	}
	var proto atomic.Value
	batches := writeBatches([]int{1, 1, 1, 1}, 10*time.Millisecond)
	srv := httptest.NewUnstartedServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		proto.Store(r.Proto)
		batches(w, r)
	}))
	srv.EnableHTTP2 = true
	srv.StartTLS()
	defer srv.Close()
	tlsConf := srv.Client().Transport.(*http.Transport).TLSClientConfig.Clone()
	rec := streamTCP(t, srv.URL, probe.Options{TLS: tlsConf})
	if !rec.Complete || proto.Load() != "HTTP/2.0" {
		t.Fatalf("complete %v over %v: want a whole HTTP/2 stream", rec.Complete, proto.Load())
	}
	w := rec.Witness
	if w == nil || !w.Stamped || len(w.Reads) == 0 || len(w.TCP) < 2 {
		t.Fatalf("witness %+v: want the TLS socket's reads stamped and its TCP figures", w)
	}
	if w.LagP99MS == nil || w.TCP[len(w.TCP)-1].BytesReceived == 0 {
		t.Errorf("lag p99 %v, bytes received %d", w.LagP99MS, w.TCP[len(w.TCP)-1].BytesReceived)
	}
}

func TestWitnessDialWrapsAnyReader(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel witness is Linux's")
	}
	addr := serveOneConn(t, func(c net.Conn) {
		for range 3 {
			c.Write([]byte("hello"))
			time.Sleep(5 * time.Millisecond)
		}
	})
	dial := probe.WitnessDial((&net.Dialer{}).DialContext)
	c, err := dial(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k := probe.WitnessOf(c)
	if k == nil {
		t.Fatal("no witness on a dialed TCP connection")
	}
	b, err := io.ReadAll(c)
	if err != nil || string(b) != "hellohellohello" {
		t.Fatalf("read %q, %v", b, err)
	}
	if v := k.View(); v.SegsIn < 1 || v.BytesIn < 15 {
		t.Errorf("view %+v: want the segments and at least the 15 bytes sent", v)
	}
}

// A reader that keeps up waits for each segment, and after it has read
// one the socket is empty, so its next attempt only peeks. A segment that
// came while no read was under way is still read at once, with its stamp,
// and not held until another segment wakes the reader.
func TestWitnessReadsWhatCameWhileNoReadWaited(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel witness is Linux's")
	}
	next, sent := make(chan struct{}), make(chan struct{})
	addr := serveOneConn(t, func(c net.Conn) {
		<-next
		c.Write([]byte("first"))
		<-next
		c.Write([]byte("second"))
		close(sent)
		<-next // the connection stays open, so only the segment can end the read
	})
	c, err := probe.WitnessDial((&net.Dialer{}).DialContext)(context.Background(), "tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	k := probe.WitnessOf(c)
	buf := make([]byte, 64)
	go func() { // the first segment, once the read below waits for it
		time.Sleep(20 * time.Millisecond)
		next <- struct{}{}
	}()
	if n, err := c.Read(buf); err != nil || string(buf[:n]) != "first" {
		t.Fatalf("read %q, %v", buf[:n], err)
	}
	first := k.LatestStamp()
	next <- struct{}{}
	<-sent
	// The segment is in the socket before the next read starts: loopback
	// delivers it within the write, and a view waits for the socket's lock.
	for k.View().BytesIn < uint64(len("firstsecond")) {
		time.Sleep(time.Millisecond)
	}
	c.SetReadDeadline(time.Now().Add(5 * time.Second))
	n, err := c.Read(buf)
	if err != nil || string(buf[:n]) != "second" {
		t.Fatalf("read %q, %v: want the segment that came between reads", buf[:n], err)
	}
	if s := k.LatestStamp(); s == 0 || s == first {
		t.Errorf("stamp %d after %d: want the second segment's own", s, first)
	}
	close(next)
}

// serveOneConn listens on loopback, hands the first connection to serve
// and closes it after, and returns the address to dial.
func serveOneConn(tb testing.TB, serve func(net.Conn)) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { ln.Close() })
	go func() {
		c, err := ln.Accept()
		if err != nil {
			return
		}
		defer c.Close()
		serve(c)
	}()
	return ln.Addr().String()
}
