package main

import (
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
)

func TestViewTextReportWarmup(t *testing.T) { synctest.Test(t, testViewTextReportWarmup) }

// drip view --no-tui says what warmup the file holds: none when there was
// none (it printed "warmup 0 streams, excluded ()"), and the warmup streams
// it left out when there were some, with the measured count as runs.
func testViewTextReportWarmup(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	dir := t.TempDir()
	for _, tc := range []struct {
		warmup string
		want   []string
	}{
		{"0", []string{"warmup    none\n", "2 attempted"}},
		{"1", []string{"warmup 1 stream: 1 warmup stream in the records (#1), excluded from every figure", "2 attempted"}},
	} {
		out := filepath.Join(dir, "w"+tc.warmup+".jsonl")
		if code, _, stderr := drip(t, "run", srv.URL, "-m", "steady", "--runs", "2", "--warmup", tc.warmup, "--out", out); code != exitOK {
			t.Fatalf("run --warmup %s: exit %d\n%s", tc.warmup, code, stderr)
		}
		code, stdout, stderr := drip(t, "view", "--no-tui", out)
		if code != exitOK {
			t.Fatalf("view: exit %d\n%s", code, stderr)
		}
		words := strings.Join(strings.Fields(stdout), " ") // the report wraps at 80 columns
		for _, want := range tc.want {
			if !strings.Contains(stdout, want) && !strings.Contains(words, want) {
				t.Errorf("--warmup %s: view report lacks %q:\n%s", tc.warmup, want, stdout)
			}
		}
		if strings.Contains(stdout, "()") {
			t.Errorf("--warmup %s: view report has an empty rule:\n%s", tc.warmup, stdout)
		}
	}
}

// A server that answers a whole JSON body instead of a stream: the report
// says the body is not a stream, and how to ask for one, rather than
// leaving "incomplete" unexplained.
func TestRunNonStreamingServerHint(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		io.WriteString(w, `{"object":"chat.completion","choices":[{"message":{"role":"assistant","content":"All at once."}}]}`)
	}))
	defer srv.Close()
	code, stdout, stderr := drip(t, "run", srv.URL, "--runs", "1")
	if code != exitCannotGo {
		t.Fatalf("exit %d, want %d (no measured stream completed)\n%s", code, exitCannotGo, stderr)
	}
	// The hint is wrapped to 80 columns: read it as words.
	if want := "hint not-a-stream: no openai-chat frame in the body: a whole (non-streaming) answer"; !strings.Contains(strings.Join(strings.Fields(stdout), " "), want) {
		t.Errorf("report lacks %q:\n%s", want, stdout)
	}
}
