package main

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// A key in the query string is redacted everywhere drip prints or writes it,
// even when the query does not parse (%zz, ;), and files drip writes are
// 0600 even when they existed with another mode (replaced with --force).
func TestRedactionAndFileModes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	dir := t.TempDir()
	for i, q := range []string{"?key=sk-S%zz", "?key=sk-S;x=1", "?alt=sse&sessionid=sk-S1&pwd=sk-S2&code=sk-S3"} {
		out, csv := filepath.Join(dir, "r.jsonl"), filepath.Join(dir, "r.csv")
		for _, p := range []string{out, csv} {
			if err := os.WriteFile(p, []byte("old\n"), 0o644); err != nil {
				t.Fatal(err)
			}
		}
		code, stdout, stderr := drip(t, "run", srv.URL+"/v1/chat/completions"+q, "-m", "steady", "--runs", "1", "--out", out, "--csv", csv, "--force")
		if code != exitOK {
			t.Fatalf("%d: exit %d\n%s", i, code, stderr)
		}
		rec, _ := os.ReadFile(out)
		csvData, _ := os.ReadFile(csv)
		for name, text := range map[string]string{"stdout": stdout, "stderr": stderr, "--out": string(rec), "--csv": string(csvData)} {
			if strings.Contains(text, "sk-S") {
				t.Errorf("%s: %s shows the key:\n%s", q, name, text)
			}
		}
		if !strings.Contains(string(rec), "key=REDACTED") && i < 2 {
			t.Errorf("%s: record target not redacted:\n%.300s", q, rec)
		}
		for _, p := range []string{out, csv} {
			st, _ := os.Stat(p)
			if st.Mode().Perm() != 0o600 {
				t.Errorf("%s: mode %v, want 0600", filepath.Base(p), st.Mode().Perm())
			}
		}
	}
}

// A header value holding CR or LF would inject headers: it is refused with
// exit 2 before anything is sent, and the value (often a key) is not echoed.
func TestHeaderWithCRLFRefused(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	for _, h := range []string{"X-A: sk-secret\r\nX-Injected: 1", "X-A: sk-secret\nX-Injected: 1", "X-A: sk-secret\x00"} {
		code, _, stderr := drip(t, "run", srv.URL, "-H", h, "--runs", "1")
		if code != exitUsage || !strings.Contains(stderr, "-H X-A") || strings.Contains(stderr, "sk-secret") {
			t.Errorf("-H %q: exit %d, stderr %q; want 2 naming -H X-A without the value", h, code, stderr)
		}
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// Numbers that are not finite or out of range are usage errors naming the
// flag, before anything is sent (--rate Inf used to run and then lose
// every record).
func TestNumericFlagsValidated(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { hits.Add(1) }))
	defer srv.Close()
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"--rate", "Inf"}, "--rate"},
		{[]string{"--rate", "NaN"}, "--rate"},
		{[]string{"--rate", "1e-300"}, "--rate"},
		{[]string{"--rate", "-1"}, "--rate"},
		{[]string{"--rate", "1e9"}, "--rate"},
		{[]string{"--rate", "1e-300,1"}, "--rate"},
		{[]string{"--runs", "-1"}, "--runs"},
		{[]string{"--runs", "100000000000"}, "--runs"},
		{[]string{"--warmup", "-3"}, "--warmup"},
		{[]string{"--concurrency", "0"}, "--concurrency"},
		{[]string{"--concurrency", "1000000000"}, "--concurrency"},
		{[]string{"--rate", "5", "--max-inflight", "0"}, "--max-inflight"},
		{[]string{"--max-tokens", "-5"}, "--max-tokens"},
		{[]string{"--max-frames", "0"}, "--max-frames"},
		{[]string{"--max-bytes", "0"}, "--max-bytes"},
		{[]string{"--max-bytes", "12XB"}, "--max-bytes"},
		{[]string{"--max-bytes", "99999999GiB"}, "--max-bytes"},
		{[]string{"--stall", "-1s"}, "--stall"},
		{[]string{"--timeout", "0s"}, "--timeout"},
		{[]string{"--duration", "-1s"}, "--duration"},
	} {
		code, stdout, stderr := drip(t, append([]string{"run", srv.URL, "--json"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.flag) || stdout != "" {
			t.Errorf("%v: exit %d, stderr %q, stdout %q; want 2 naming %s", c.args, code, stderr, stdout, c.flag)
		}
	}
	rec := filepath.Join(t.TempDir(), "rec.jsonl")
	for _, c := range []struct {
		args []string
		flag string
	}{
		{[]string{"replay", rec, "--against", srv.URL, "--rate", "NaN"}, "--rate"},
		{[]string{"replay", rec, "--against", srv.URL, "--rate", "Inf"}, "--rate"},
		{[]string{"replay", rec, "--against", srv.URL, "--concurrency", "-1"}, "--concurrency"},
		{[]string{"replay", rec, "--against", srv.URL, "-H", "X-A: v\r\nX-B: w"}, "-H X-A"},
		{[]string{"fixtures", "serve", "--from", rec, "--speed", "NaN"}, "--speed"},
		{[]string{"fixtures", "serve", "--from", rec, "--speed", "Inf"}, "--speed"},
		{[]string{"run", srv.URL, "--concurrency", "1,2", "--runs-per-level", "100000000000"}, "--runs-per-level"},
	} {
		code, _, stderr := drip(t, c.args...)
		if code != exitUsage || !strings.Contains(stderr, c.flag) {
			t.Errorf("%v: exit %d, stderr %q; want 2 naming %s", c.args, code, stderr, c.flag)
		}
	}
	if code, _, stderr := drip(t, "calibrate", "--rounds", "0"); code != exitUsage || !strings.Contains(stderr, "--rounds") {
		t.Errorf("calibrate --rounds 0: exit %d %q", code, stderr)
	}
	if code, _, stderr := drip(t, "demo", "--no-tui", "--runs", "-1"); code != exitUsage || !strings.Contains(stderr, "--runs") {
		t.Errorf("demo --runs -1: exit %d %q", code, stderr)
	}
	if n := hits.Load(); n != 0 {
		t.Errorf("%d requests reached the server", n)
	}
}

// The real binary against 7.8 MB of keepalives: under 100 MB of RSS (it
// took 962 MB), the stream complete, the keepalives counted.
func TestKeepaliveFloodMemoryRealBinary(t *testing.T) {
	t.Parallel()
	bin := builtDrip(t)
	const pings = 975_000
	body := strings.Repeat(": ping\n\n", pings) + strings.Repeat("data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n", 3) + "data: [DONE]\n\n"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	defer srv.Close()
	out := filepath.Join(t.TempDir(), "r.jsonl")
	cmd := exec.Command(bin, "run", srv.URL, "--runs", "1", "--no-tui", "--out", out)
	rss, b, err := peakRSS(cmd)
	if err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	t.Logf("peak RSS %d KiB for a %d-byte keepalive flood", rss, len(body))
	if rss > 100<<10 {
		t.Errorf("peak RSS %d KiB, want under 100 MiB", rss)
	}
	recs := readRecords(t, out)
	if len(recs) != 1 || recs[0].Keepalives != pings || !recs[0].Complete {
		t.Fatalf("%d records; want one complete record counting %d keepalives", len(recs), pings)
	}
}

// peakRSS runs cmd and returns its peak resident set in KiB, read from
// /proc (VmHWM) while it runs. The rusage of a child is no measure here: Go
// starts children with vfork, so Linux hands the child the test process's
// own high-water mark at exec (and under -race that alone is over 100 MiB).
func peakRSS(cmd *exec.Cmd) (kib int64, output []byte, err error) {
	var buf bytes.Buffer
	cmd.Stdout, cmd.Stderr = &buf, &buf
	if err := cmd.Start(); err != nil {
		return 0, nil, err
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	status := fmt.Sprintf("/proc/%d/status", cmd.Process.Pid)
	tick := time.NewTicker(time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case err := <-exited:
			return kib, buf.Bytes(), err
		case <-tick.C:
			kib = max(kib, vmHWM(status))
		}
	}
}

// vmHWM is the VmHWM line of a /proc status file in KiB, 0 if unreadable.
func vmHWM(path string) int64 { return statusKiB(path, "VmHWM:") }

// statusKiB is a line of a /proc status file in KiB (field "VmRSS:"), 0
// if unreadable.
func statusKiB(path, field string) int64 {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, field); ok {
			n, _ := strconv.ParseInt(strings.TrimSuffix(strings.TrimSpace(v), " kB"), 10, 64)
			return n
		}
	}
	return 0
}

// Exit codes say what happened: 3 when no measured stream completed (the
// report still printed), 2 for a relative gate where there is no baseline
// (before anything is sent) and for a missing file in every command.
func TestExitCodesSayWhatHappened(t *testing.T) {
	t.Parallel()
	var hits atomic.Int64
	notFound := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		http.NotFound(w, r)
	}))
	defer notFound.Close()
	fx := httptest.NewServer(fixtures.NewServer())
	defer fx.Close()
	for _, c := range []struct {
		name, url, model, class string
	}{{"every stream 429", fx.URL, "rate-limited", "http_429"}, {"every stream 404", notFound.URL, "m", "http_4xx"}} {
		code, stdout, stderr := drip(t, "run", c.url, "-m", c.model, "--runs", "2")
		if code != exitCannotGo || !strings.Contains(stdout, "2 attempted") || !strings.Contains(stderr, "no measured stream completed") || !strings.Contains(stderr, c.class+" ×2") {
			t.Errorf("%s: exit %d; stdout:\n%s\nstderr:\n%s\nwant 3, the report, and the failures by class", c.name, code, stdout, stderr)
		}
	}

	before := hits.Load()
	for _, args := range [][]string{
		{"run", notFound.URL, "--fail-if", "ttft.p95 > +10%"},
		{"watch", notFound.URL, "--no-tui", "--fail-if", "gap.p99 > +20ms"},
		{"demo", "--no-tui", "--fail-if", "ttft.p95 > -5%"},
	} {
		code, _, stderr := drip(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "--fail-if") || !strings.Contains(stderr, "baseline") {
			t.Errorf("%v: exit %d %q; want 2 refusing the relative gate", args, code, stderr)
		}
	}
	if n := hits.Load() - before; n != 0 {
		t.Errorf("a relative gate let %d requests out", n)
	}

	missing := filepath.Join(t.TempDir(), "missing.jsonl")
	for _, args := range [][]string{
		{"view", missing, "--no-tui"},
		{"compare", missing, missing, "--no-tui"},
		{"merge", missing, missing, "--out", filepath.Join(t.TempDir(), "m.jsonl")},
		{"export", "aiperf", missing},
		{"replay", missing, "--against", notFound.URL},
		{"fixtures", "serve", "--from", missing, "--addr", "127.0.0.1:0"},
		{"run", notFound.URL, "--body", missing},
		{"run", notFound.URL, "--prompt-file", missing},
	} {
		code, _, stderr := drip(t, args...)
		if code != exitUsage || !strings.Contains(stderr, "missing.jsonl") {
			t.Errorf("%v: exit %d %q; want 2 naming the file", args, code, stderr)
		}
	}
}

// A failed write (--out /dev/full) stops the run at the first record
// instead of measuring everything and losing it; the summary of what was
// measured is printed and the exit is 3.
func TestFailedWriteStopsTheRun(t *testing.T) {
	t.Parallel()
	if _, err := os.Stat("/dev/full"); err != nil {
		t.Skip("no /dev/full")
	}
	fx := httptest.NewServer(fixtures.NewServer())
	defer fx.Close()
	code, stdout, stderr := drip(t, "run", fx.URL, "-m", "steady", "--runs", "20", "--out", "/dev/full", "--json")
	var s stats.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("no summary on stdout (%v):\n%s\nstderr:\n%s", err, stdout, stderr)
	}
	if code != exitCannotGo || s.Streams.Admitted > 2 || s.Streams.Completed < 1 || !strings.Contains(stderr, "writing records") {
		t.Errorf("exit %d, %d admitted, %d completed; stderr:\n%s\nwant 3 after the first stream (or two), its summary kept", code, s.Streams.Admitted, s.Streams.Completed, stderr)
	}
}

// SIGTERM (what CI and container runtimes send) against the real binary:
// exit 143, every finished record on disk, the summary printed.
func TestRunSIGTERMRealBinary(t *testing.T) {
	t.Parallel()
	bin := builtDrip(t)
	fx := httptest.NewServer(fixtures.NewServer())
	defer fx.Close()
	out := filepath.Join(t.TempDir(), "runs.jsonl")
	var stdout, stderr strings.Builder
	run := exec.Command(bin, "run", fx.URL, "-m", "steady", "--runs", "100", "--out", out, "--no-tui")
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(50 * time.Millisecond) { // polling the file, not timing anything
		b, _ := os.ReadFile(out)
		if strings.Count(string(b), "\n") >= 2 {
			break
		}
		if time.Now().After(deadline) {
			run.Process.Kill()
			t.Fatalf("no two records within a minute")
		}
	}
	run.Process.Signal(syscall.SIGTERM)
	run.Wait()
	if code := run.ProcessState.ExitCode(); code != 143 {
		t.Errorf("exit %d after SIGTERM, want 143; stderr:\n%s", code, stderr.String())
	}
	f, _ := os.Open(out)
	defer f.Close()
	recs, skipped, err := record.ReadAll(f, stats.Rederive)
	complete := 0
	for _, r := range recs {
		if r.Complete {
			complete++
		}
	}
	if err != nil || len(skipped) > 0 || complete < 2 {
		t.Errorf("records: %d complete of %d, skipped %v, err %v; want the finished ones intact", complete, len(recs), skipped, err)
	}
	if !strings.Contains(stdout.String(), "attempted") || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("no summary after SIGTERM:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

// A server that writes a second, unsolicited response on an idle
// keep-alive connection makes net/http log a line; the real binary keeps it
// off the terminal and reports it once, as a warning, at the end.
func TestNetHTTPLogKeptOffTheTerminal(t *testing.T) {
	t.Parallel()
	bin := builtDrip(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	body := "data: {\"choices\":[{\"delta\":{\"content\":\"a\"}}]}\n\n" +
		"data: {\"choices\":[{\"delta\":{\"content\":\"b\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\"c\"}}]}\n\ndata: [DONE]\n\n"
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			go func(c net.Conn) {
				defer c.Close()
				br := bufio.NewReader(c)
				for {
					req, err := http.ReadRequest(br)
					if err != nil {
						return
					}
					io.Copy(io.Discard, req.Body)
					fmt.Fprintf(c, "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nContent-Length: %d\r\n\r\n%s", len(body), body)
					// and at once a response nobody asked for, on the idle connection
					io.WriteString(c, "HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n")
				}
			}(c)
		}
	}()
	// Whether net/http sees the extra bytes before drip closes the idle
	// connection is a race it runs once per stream: ten streams make a run
	// with no line at all vanishingly rare.
	cmd := exec.Command(bin, "run", "http://"+ln.Addr().String(), "--runs", "10", "--no-tui")
	var stdout, stderr strings.Builder
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.Run()
	if strings.Count(stderr.String(), "Unsolicited response") != 1 || !strings.Contains(stderr.String(), "drip: warning: net/http logged") {
		t.Errorf("stderr:\n%s\nwant net/http's line only inside drip's one warning", stderr.String())
	}
	if strings.Contains(stdout.String(), "Unsolicited") {
		t.Errorf("stdout carries net/http's log:\n%s", stdout.String())
	}
}
