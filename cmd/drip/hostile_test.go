package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
)

// A key in the query string is redacted everywhere drip prints or writes it,
// even when the query does not parse (%zz, ;), and files drip writes are
// 0600 even when they existed with another mode.
func TestRedactionAndFileModes(t *testing.T) {
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
		code, stdout, stderr := drip(t, "run", srv.URL+"/v1/chat/completions"+q, "-m", "steady", "--runs", "1", "--out", out, "--csv", csv)
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
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("%v\n%s", err, b)
	}
	rss := cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss // KiB on Linux
	t.Logf("max RSS %d KiB for a %d-byte keepalive flood", rss, len(body))
	if rss > 100<<10 {
		t.Errorf("max RSS %d KiB, want under 100 MiB", rss)
	}
	f, _ := os.Open(out)
	defer f.Close()
	recs, _, err := probe.ReadRecords(f)
	if err != nil || len(recs) != 1 || recs[0].Keepalives != pings || !recs[0].Complete {
		t.Fatalf("records %d err %v; want one complete record counting %d keepalives", len(recs), err, pings)
	}
}
