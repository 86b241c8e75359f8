package main

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driplab/drip/record"
)

// startHopsRecord runs the real drip record with --hops-addr under
// ulimit -n files (0: as it comes) in front of a streaming upstream, and
// returns it with its listen and hops addresses.
func startHopsRecord(t *testing.T, files int) (pid int, addr, hopsAddr string) {
	t.Helper()
	bin := builtDrip(t)
	if files > 0 {
		wrapper := filepath.Join(t.TempDir(), "drip")
		os.WriteFile(wrapper, fmt.Appendf(nil, "#!/bin/sh\nulimit -n %d && exec %s \"$@\"\n", files, bin), 0o755)
		bin = wrapper
	}
	up := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, "data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: [DONE]\n\n")
	}))
	t.Cleanup(up.Close)
	// Port 0 and the address drip record says it took: a port picked free
	// beforehand can be taken by another test's socket before drip binds it.
	cmd, head, stderr := startRecordUntil(t, bin, func(l string) bool { return strings.Contains(l, "/hops/ID") },
		"--upstream", up.URL, "--out", filepath.Join(t.TempDir(), "rec.jsonl"), "--hops-addr", "127.0.0.1:0")
	_, hops, _ := strings.Cut(head[len(head)-1], "http://")
	hopsAddr, _, _ = strings.Cut(hops, "/hops/ID")
	if hopsAddr == "" {
		cmd.Process.Kill()
		t.Fatalf("drip record named no hops address:\n%s", stderr())
	}
	return cmd.Process.Pid, listenAddr(head[0]), hopsAddr
}

// streamThrough sends one streaming request through the relay at addr (a URL)
// with id, and says whether it came back whole within 10 s.
func streamThrough(addr, id string) error {
	req, _ := http.NewRequest("POST", addr+"/v1/chat/completions", strings.NewReader(`{"stream":true}`))
	req.Header.Set(record.StreamHeader, id)
	resp, err := (&http.Client{Timeout: 10 * time.Second}).Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err == nil && !strings.Contains(string(b), "[DONE]") {
		err = fmt.Errorf("HTTP %d, %q", resp.StatusCode, b)
	}
	return err
}

// 250 idle connections to the hops endpoint of a relay under ulimit -n
// 256 do not stop it serving its own clients: the endpoint takes
// hopsConns of them, the rest wait in the kernel's backlog.
func TestRecordServesPast250IdleHopsClients(t *testing.T) {
	t.Parallel()
	_, addr, hopsAddr := startHopsRecord(t, 256)
	var idle []net.Conn
	for range 250 {
		c, err := net.Dial("tcp", hopsAddr)
		if err != nil {
			t.Fatal(err)
		}
		idle = append(idle, c)
	}
	defer func() {
		for _, c := range idle {
			c.Close()
		}
	}()
	for i := range 5 {
		if err := streamThrough(addr, fmt.Sprintf("run-%d", i)); err != nil {
			t.Fatalf("stream %d through the relay beside 250 idle hops clients: %v", i, err)
		}
	}
}

// 300 requests with ids of 1 MB leave a relay with --hops-addr under
// 400 MB of RSS at its peak: no id that long is kept for the endpoint.
func TestRecordHopsHoldsNoMegabyteIDs(t *testing.T) {
	t.Parallel()
	pid, addr, _ := startHopsRecord(t, 0)
	var wg sync.WaitGroup
	errs := make(chan error, 300)
	for w := range 10 {
		wg.Go(func() {
			for i := range 30 {
				id := fmt.Sprintf("%03d-%d-", w, i) + strings.Repeat("x", 1_000_000)
				if err := streamThrough(addr, id); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("a request with a 1 MB id: %v", err)
	}
	peak := statusKiB(fmt.Sprintf("/proc/%d/status", pid), "VmHWM:")
	t.Logf("peak RSS after 300 requests with 1 MB ids: %d MiB", peak>>10)
	if peak > 400<<10 {
		t.Errorf("peak RSS %d MiB, want under 400", peak>>10)
	}
}
