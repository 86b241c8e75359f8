package main

import (
	"bufio"
	"bytes"
	"io"
	"net"
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
	"github.com/driplab/drip/record"
)

// startRecord starts the real drip record with args after its --listen
// and returns the process, its address and its stderr so far.
func startRecord(t testing.TB, bin string, args ...string) (*exec.Cmd, string, func() string) {
	t.Helper()
	cmd, head, stderr := startRecordUntil(t, bin, func(string) bool { return true }, args...)
	return cmd, listenAddr(head[0]), stderr
}

// listenAddr is the address in drip record's first line, "drip record:
// http://ADDR → …".
func listenAddr(first string) string {
	addr, _, _ := strings.Cut(strings.TrimPrefix(first, "drip record: "), " ")
	return addr
}

// startRecordUntil starts drip record as startRecord does and reads its
// stderr's lines up to the first that until takes, and returns them.
func startRecordUntil(t testing.TB, bin string, until func(line string) bool, args ...string) (*exec.Cmd, []string, func() string) {
	t.Helper()
	cmd := exec.Command(bin, append([]string{"record", "--listen", "127.0.0.1:0"}, args...)...)
	// An os.Pipe of the test's own, not StderrPipe: cmd.Wait closes a
	// StderrPipe as the process exits, and the lines still in it (drip
	// record's last, its count) would be lost to the reader below.
	pipe, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = w
	err = cmd.Start()
	w.Close() // the child holds its own copy, so the reader sees EOF when it exits
	if err != nil {
		t.Fatal(err)
	}
	r := bufio.NewReader(pipe)
	var (
		mu   sync.Mutex
		buf  bytes.Buffer
		head []string
	)
	for {
		l, err := r.ReadString('\n')
		buf.WriteString(l)
		head = append(head, l)
		if until(l) || err != nil {
			break
		}
	}
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
				pipe.Close()
				return
			}
		}
	}()
	t.Cleanup(func() { cmd.Process.Kill() })
	return cmd, head, func() string { <-done; mu.Lock(); defer mu.Unlock(); return buf.String() }
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
	t.Parallel()
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

// drip replay of a recording whose request bodies drip record masked says,
// before sending, how many streams send the mask; the server gets the
// body as recorded. Today's replay said nothing.
func TestReplaySaysItSendsMaskedBodies(t *testing.T) {
	t.Parallel()
	var got []string
	var mu sync.Mutex
	fx := fixtures.NewServer()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		mu.Lock()
		got = append(got, string(b))
		mu.Unlock()
		r.Body = io.NopCloser(bytes.NewReader(b))
		fx.ServeHTTP(w, r)
	}))
	defer srv.Close()
	x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, ContentType: "text/event-stream", Removed: []string{"body api_key"}}
	x.SetBody([]byte(`{"model":"m","stream":true,"api_key":"REDACTED"}`))
	path := tempRecords(t, []*record.Record{{V: record.RecordVersion, Phase: record.PhaseMeasure, Format: "openai-chat", Model: "m", Status: record.StatusComplete, Exchange: x}})
	_, _, stderr := drip(t, "replay", path, "--against", srv.URL, "--no-tui")
	if !strings.Contains(stderr, "drip replay: note: sending the request body as drip record masked it (REDACTED, or * for each byte, where a credential stood; exchange.removed names them) for 1 stream\n") {
		t.Errorf("stderr:\n%s\nwant the masked body said", stderr)
	}
	if len(got) != 1 || !strings.Contains(got[0], `"api_key":"REDACTED"`) {
		t.Errorf("the server got %q, want the body as recorded", got)
	}
}

// A kept-alive connection left idle is closed after --idle-timeout, and
// so is one that never sends its request's headers. Today's drip record
// kept the first open for ever.
func TestRecordClosesIdleConnections(t *testing.T) {
	t.Parallel()
	bin := builtDrip(t)
	fx := httptest.NewServer(fixtures.NewServer())
	defer fx.Close()
	cmd, addr, _ := startRecord(t, bin, "--upstream", fx.URL, "--out", t.TempDir()+"/r.jsonl", "--idle-timeout", "500ms")
	defer cmd.Process.Signal(syscall.SIGTERM)
	for _, request := range []string{"GET /v1/models?scenario=rate-limited HTTP/1.1\r\nHost: x\r\n\r\n", "GET /v1/models HTTP/1.1\r\n"} {
		conn, err := net.Dial("tcp", strings.TrimPrefix(addr, "http://"))
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(conn, request)
		conn.SetReadDeadline(time.Now().Add(30 * time.Second)) // a bound on the test, not a timing
		r := bufio.NewReader(conn)
		if resp, err := http.ReadResponse(r, nil); err == nil {
			io.Copy(io.Discard, resp.Body)
		}
		if _, err := r.ReadByte(); err != io.EOF {
			t.Errorf("%q: the connection was not closed (%v), want EOF after the idle timeout", request, err)
		}
		conn.Close()
	}
}
