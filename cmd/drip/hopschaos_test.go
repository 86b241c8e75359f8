package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// hopsHostile opens one hostile client of the hops endpoint at hopsAddr,
// of kind k: an idle connection, headers sent a part at a time and never
// finished, headers of 64 KiB, or a GET of id whose answer it never
// reads. It returns the connection, for the caller to hang up.
func hopsHostile(hopsAddr, id string, k int) (net.Conn, error) {
	c, err := net.Dial("tcp", hopsAddr)
	if err != nil {
		return nil, err
	}
	switch k % 4 {
	case 1:
		io.WriteString(c, "GET /hops/"+id+" HTTP/1.1\r\nHost: x\r\n")
	case 2:
		io.WriteString(c, "GET /hops/"+id+" HTTP/1.1\r\nHost: x\r\nX-Big: "+strings.Repeat("b", 64<<10)+"\r\n\r\n")
	case 3:
		io.WriteString(c, "GET /hops/"+id+" HTTP/1.1\r\nHost: x\r\n\r\n")
	}
	return c, nil
}

// The hops endpoint under slow, idle and hostile clients at once, beside
// the relay's own clients (TestRecordChaosRealBinary is the relay's):
// under ulimit -n 256, 200 hostile connections of every kind, 30
// streams claiming 1 MB ids and 30 claiming a running stream's id leave
// the relay serving its clients and its RSS under 400 MB, the first
// stream's times are not taken, and once the hostile clients hang up
// the endpoint answers at once.
func TestHopsEndpointChaosRealBinary(t *testing.T) {
	t.Parallel()
	pid, addr, hopsAddr := startHopsRecord(t, 256)
	if err := streamThrough(addr, "legit-0"); err != nil {
		t.Fatalf("the first stream: %v", err)
	}
	var hostile []net.Conn
	for k := range 200 {
		c, err := hopsHostile(hopsAddr, "legit-0", k)
		if err != nil {
			t.Fatalf("hostile client %d: %v", k, err)
		}
		hostile = append(hostile, c)
	}
	var wg sync.WaitGroup
	errs := make(chan error, 70)
	for i := range 30 {
		wg.Go(func() { errs <- streamThrough(addr, fmt.Sprintf("big-%d-", i)+strings.Repeat("x", 1_000_000)) })
		wg.Go(func() { errs <- streamThrough(addr, "legit-0") })
	}
	for i := 1; i <= 10; i++ {
		wg.Go(func() { errs <- streamThrough(addr, fmt.Sprintf("legit-%d", i)) })
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatalf("a stream through the relay beside 200 hostile hops clients: %v", err)
		}
	}
	peak := statusKiB(fmt.Sprintf("/proc/%d/status", pid), "VmHWM:")
	t.Logf("peak RSS beside 200 hostile hops clients and 70 streams: %d MiB", peak>>10)
	if peak > 400<<10 {
		t.Errorf("peak RSS %d MiB, want under 400", peak>>10)
	}
	for _, c := range hostile {
		c.Close()
	}
	start := time.Now()
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://" + hopsAddr + "/hops/legit-0")
	if err != nil {
		t.Fatalf("the endpoint once the hostile clients hung up: %v", err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	t.Logf("answered in %v once the hostile clients hung up", time.Since(start))
	if resp.StatusCode != 200 || !strings.Contains(string(b), `"id":"legit-0"`) || !strings.Contains(string(b), `"done":true`) {
		t.Errorf("GET /hops/legit-0: HTTP %d %s; want the first stream's times, done", resp.StatusCode, b)
	}
}
