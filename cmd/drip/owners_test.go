package main

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// The tests of docs/owners.md's truth table that run drip against the
// fixture server: each condition, the verdict drip gives. They share the
// package's dial hook, so none runs in parallel.

// runSummary runs drip with args against a fresh fixture server on the
// in-memory network and returns its --json summary.
func runSummary(t *testing.T, args ...string) stats.Summary {
	t.Helper()
	srv := serveInMemory(t, fixtures.NewServer())
	code, stdout, stderr := drip(t, append([]string{"run", srv.URL, "--json"}, args...)...)
	if code != exitOK {
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var s stats.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	return s
}

func shapes(s stats.Summary) []string {
	var out []string
	for _, d := range s.Diagnosis {
		out = append(out, d.Shape)
	}
	return out
}

// A pause on every 5th request is the server's, recurring: the first
// stream shows it but is not alone, so it is no cold start. With the
// pause only on the first of four streams, it is.
func TestOwnersPauseEveryFifthIsNotColdStart(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := runSummary(t, "-m", "every-fifth-slow", "--runs", "10")
		if got := shapes(s); slices.Contains(got, stats.ShapeColdStart) {
			t.Errorf("1st and 6th of 10 streams slow: diagnosis %v names a cold start", got)
		}
	})
	synctest.Test(t, func(t *testing.T) {
		s := runSummary(t, "-m", "every-fifth-slow", "--runs", "4")
		if got := shapes(s); !slices.Contains(got, stats.ShapeColdStart) {
			t.Errorf("only the 1st of 4 streams slow: diagnosis %v, want cold-start", got)
		}
	})
}

// A body that is no stream is not_stream whatever picked the decoder: the
// URL's path, --format, or auto. The error says the content type and the
// body's first bytes.
func TestOwnersNotAStreamWhateverPickedTheDecoder(t *testing.T) {
	for _, tc := range []struct {
		scenario, path, ct, starts string
		args                       []string
	}{
		{"html-page", "/v1/chat/completions", "text/html", "<!DOCTYPE html>", nil},
		{"whole-json", "/v1/chat/completions", "application/json", "chatcmpl-whole", nil},
		{"sse-json-body", "/v1/chat/completions", "text/event-stream", "chatcmpl-whole", nil},
		{"sse-json-body", "/v1/chat/completions", "text/event-stream", "chatcmpl-whole", []string{"--format", "openai-chat"}},
		{"html-page", "/my/stream", "text/html", "<!DOCTYPE html>", []string{"--format", "openai-chat"}},
		{"whole-json", "/my/stream", "application/json", "chatcmpl-whole", nil},
		{"sse-json-body", "/my/stream", "text/event-stream", "chatcmpl-whole", nil},
	} {
		t.Run(tc.scenario+tc.path+strings.Join(tc.args, ""), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				srv := serveInMemory(t, fixtures.NewServer())
				out := filepath.Join(t.TempDir(), "runs.jsonl")
				args := append([]string{"run", srv.URL + tc.path, "-m", tc.scenario, "--runs", "2", "--json", "--out", out}, tc.args...)
				_, stdout, stderr := drip(t, args...)
				var s stats.Summary
				if err := json.Unmarshal([]byte(stdout), &s); err != nil {
					t.Fatalf("--json: %v\n%s", err, stderr)
				}
				recs := readRecords(t, out)
				for _, r := range recs {
					if r.Error == nil || r.Error.Class != record.ErrNotStream ||
						!strings.Contains(r.Error.Message, tc.ct) || !strings.Contains(r.Error.Message, tc.starts) {
						t.Errorf("%s at %s %v: error %+v, want not_stream naming %s and %q", tc.scenario, tc.path, tc.args, r.Error, tc.ct, tc.starts)
					}
				}
				if s.Streams.Buffered != 0 || !slices.Contains(shapes(s), stats.ShapeNotAStream) {
					t.Errorf("%s at %s %v: buffered %d, diagnosis %v, want not-a-stream", tc.scenario, tc.path, tc.args, s.Streams.Buffered, shapes(s))
				}
			})
		})
	}
}
