package main

import (
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/driplab/drip/fixtures"
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
