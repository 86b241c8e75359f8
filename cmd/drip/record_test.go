package main

import (
	"bufio"
	"bytes"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/driplab/drip/fixtures"
)

// startRecord starts the real drip record with args after its --listen
// and returns the process, its address and its stderr so far.
func startRecord(t testing.TB, bin string, args ...string) (*exec.Cmd, string, func() string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"record", "--listen", "127.0.0.1:0"}, args...)...)
	pipe, _ := cmd.StderrPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(pipe)
	line, _ := r.ReadString('\n') // drip record: http://ADDR → …
	addr, _, _ := strings.Cut(strings.TrimPrefix(line, "drip record: "), " ")
	var (
		mu  sync.Mutex
		buf = bytes.NewBufferString(line)
	)
	done := make(chan struct{})
	go func() {
		defer close(done)
		b := make([]byte, 4096)
		for {
			n, err := r.Read(b)
			mu.Lock()
			buf.Write(b[:n])
			mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, addr, func() string { <-done; mu.Lock(); defer mu.Unlock(); return buf.String() }
}

// waitExit waits for cmd to exit on its own, and fails the test if it has
// not within limit (today's drip record never does after a failed write).
func waitExit(t testing.TB, cmd *exec.Cmd, limit time.Duration) time.Duration {
	t.Helper()
	start := time.Now()
	exited := make(chan struct{})
	go func() { cmd.Wait(); close(exited) }()
	select {
	case <-exited:
	case <-time.After(limit):
		cmd.Process.Kill()
		<-exited
		t.Fatalf("still running %s later", limit)
	}
	return time.Since(start)
}

// A record drip record cannot write (--out /dev/full, a full disk) stops
// it at once: it says so, stops accepting, and exits 3, also when a
// SIGTERM came after the exchange; its last line claims no exchange
// written. Today's drip record went on accepting, said "1 exchange …
// written", and exited 143 after the signal.
func TestRecordStopsAtTheFirstFailedWrite(t *testing.T) {
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	bin := builtDrip(t)
	fx := httptest.NewServer(fixtures.NewServer())
	defer fx.Close()
	for _, signal := range []bool{false, true} {
		cmd, addr, stderr := startRecord(t, bin, "--upstream", fx.URL, "--out", "/dev/full")
		resp, err := http.Post(addr+"/v1/chat/completions", "application/json", strings.NewReader(`{"model":"steady","stream":true}`))
		if err != nil {
			t.Fatal(err)
		}
		io.Copy(io.Discard, resp.Body)
		resp.Body.Close()
		if signal {
			cmd.Process.Signal(syscall.SIGTERM)
		}
		waitExit(t, cmd, time.Minute)
		out := stderr()
		// The failure is said either as it happens or, when the signal came
		// first (a loaded machine), in the exit's error line.
		if code := cmd.ProcessState.ExitCode(); code != 3 || !strings.Contains(out, "/dev/full: no space left on device") || !strings.Contains(out, "0 exchanges (0 streams, 0 failed, 0 passthrough) written to /dev/full; 1 exchange not written") {
			t.Errorf("SIGTERM %v: exit %d, stderr:\n%s\nwant 3, the failure said, no exchange claimed written", signal, code, out)
		}
		if _, err := http.Post(addr+"/v1/chat/completions", "application/json", strings.NewReader(`{}`)); err == nil {
			t.Errorf("SIGTERM %v: drip record still accepts", signal)
		}
	}
}
