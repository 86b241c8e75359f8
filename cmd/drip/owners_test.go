package main

import (
	"encoding/json"
	"slices"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
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
