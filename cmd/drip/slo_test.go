package main

import (
	"encoding/json"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/stats"
)

// --slo against the fixture server on loopback: steady meets it, the
// mid-sentence stall does not, and the goodput gate decides the exit code.
// On synctest's clock over the in-memory fixture server, steady's gaps are
// its schedule's whatever the load, so the 250 ms SLO cannot trip by chance.
func TestRunSLOGoodput(t *testing.T) { synctest.Test(t, testRunSLOGoodput) }

func testRunSLOGoodput(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	for _, tc := range []struct {
		model string
		pct   float64
		code  int
	}{{"steady", 100, exitOK}, {"mid-sentence-stall", 0, exitGate}} {
		code, stdout, stderr := drip(t, "run", srv.URL, "-m", tc.model, "--runs", "2", "--json",
			"--slo", "ttft<500ms,gap.p99<250ms", "--fail-if", "goodput < 90%")
		if code != tc.code {
			t.Fatalf("%s: exit %d, want %d; stderr:\n%s", tc.model, code, tc.code, stderr)
		}
		var s stats.Summary
		if err := json.Unmarshal([]byte(stdout), &s); err != nil {
			t.Fatalf("%s: %v\n%s", tc.model, err, stdout)
		}
		g := s.Goodput
		if g == nil || g.Pct == nil || *g.Pct != tc.pct || g.Of != 2 || g.SLO != "ttft<500ms,gap.p99<250ms" {
			t.Errorf("%s: goodput %+v, want %v%% of 2", tc.model, g, tc.pct)
		}
	}
	code, stdout, _ := drip(t, "run", srv.URL, "-m", "steady", "--runs", "1", "--slo", "ttft<500ms")
	if code != exitOK || !strings.Contains(stdout, "goodput   100.0% (1 of 1 streams completed and met ttft<500ms)") {
		t.Errorf("exit %d; the report lacks the goodput line:\n%s", code, stdout)
	}
}

func TestRunSLOUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		msg  string
	}{
		{[]string{"--slo", "ttft<<5"}, "--slo: SLO term \"ttft<<5\""},
		{[]string{"--slo", "gap<250ms"}, "name a statistic, e.g. gap.p99"},
		{[]string{"--slo", "speed>3"}, "unknown per-stream metric \"speed\""},
		{[]string{"--fail-if", "goodput < 90"}, "add drip run's --slo"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.msg) {
			t.Errorf("%v: exit %d, stderr %q; want 2 and %q", tc.args, code, stderr, tc.msg)
		}
	}
}
