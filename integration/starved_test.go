package integration

import (
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/testenv"
	"github.com/driplab/drip/stats"
)

// starvedRun runs drip against the fixture server with the workload args
// through cmd, which wraps drip's command line, and returns the run's
// summary and its shapes.
func starvedRun(t *testing.T, cmd func(name string, args ...string) *exec.Cmd, args ...string) (stats.Summary, map[string]string) {
	t.Helper()
	bin := buildDrip(t)
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	c := cmd(bin, append([]string{"run", srv.URL + "/v1/chat/completions", "--json"}, args...)...)
	out, err := c.Output()
	if err != nil {
		t.Fatalf("drip run: %v\n%s", err, out)
	}
	var s stats.Summary
	if err := json.Unmarshal(out, &s); err != nil {
		t.Fatalf("summary: %v\n%s", err, out)
	}
	shapes := map[string]string{}
	for _, d := range s.Diagnosis {
		shapes[d.Shape] = d.Evidence
	}
	return s, shapes
}

// A reader held to 3% of a core by a CPU quota takes its reads late, and
// the kernel sees it: the run is client-limited with the reader's lag as
// its evidence. 200 streams of a frame every 50 ms ask drip for more than
// the quota gives (one light stream fits in it), and each read after a
// throttled period finds its newest frame up to 50 ms old. The kernel
// stamps only a read's newest segment, so a reader starved against a
// stream faster than its throttling shows its merges more than its lag.
func TestAStarvedReaderIsClientLimitedByItsLag(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel witness and cgroups are Linux's")
	}
	procs := testenv.CPUQuota(t, 3)
	starved := func(name string, args ...string) *exec.Cmd { return testenv.Starved(procs, name, args...) }
	s, shapes := starvedRun(t, starved, "-m", "paced", "--runs", "200", "--concurrency", "200")
	ev, ok := shapes[stats.ShapeClientLimited]
	if !ok {
		t.Fatalf("shapes %v, witness %+v: want client-limited", shapes, s.Witness)
	}
	if !strings.Contains(ev, "had a late reader") || !strings.Contains(ev, "reader lag p50") {
		t.Errorf("evidence %q: want the reader's lag", ev)
	}
	lag := stats.ReaderLag.Of(s.Metrics)
	t.Logf("reader lag p50 %.3g p99 %.3g max %.3g ms; late %d of %d", *lag.P50, *lag.P99, *lag.Max, s.Witness.Late, s.Witness.Stamped)
}

// A reader beside two busy loops holding both cores keeps up: its
// threads wait for a core, the OS says so, but the kernel saw each read
// taken on time, and the run is not client-limited.
func TestABusyMachinesReaderThatKeptUpIsNotClientLimited(t *testing.T) {
	t.Parallel()
	if runtime.GOOS != "linux" {
		t.Skip("the kernel witness is Linux's")
	}
	for range 2 {
		busy := exec.Command("sh", "-c", "while :; do :; done")
		if err := busy.Start(); err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { busy.Process.Kill(); busy.Wait() })
	}
	s, shapes := starvedRun(t, exec.Command, "-m", "steady", "--runs", "3", "--warmup", "1")
	lag := stats.ReaderLag.Of(s.Metrics)
	if lag.N == 0 {
		t.Fatalf("witness %+v: no read stamped", s.Witness)
	}
	var os string
	if c := s.Client; c != nil && c.OS != nil {
		os = fmt.Sprintf("; the OS: %d of %d streams starved, longest thread wait max %.3g ms", c.OS.Starved, c.OS.Streams, starvedVal(c.OS.MaxThreadWait.Max))
	}
	t.Logf("reader lag p50 %.3g p99 %.3g max %.3g ms; late %d of %d%s; shapes %v", *lag.P50, *lag.P99, *lag.Max, s.Witness.Late, s.Witness.Stamped, os, shapes)
	if *lag.P99 >= stats.ReaderLateMS {
		t.Fatalf("the reader fell behind (lag p99 %v ms): the machine held it, not only busy", *lag.P99)
	}
	if ev, ok := shapes[stats.ShapeClientLimited]; ok {
		t.Errorf("a reader that kept up is client-limited: %s", ev)
	}
}

func starvedVal(p *float64) float64 {
	if p == nil {
		return 0
	}
	return *p
}
