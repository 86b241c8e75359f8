package integration

import (
	"bytes"
	"encoding/json"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/integration/delayrelay"
)

// TestSecondHostReadsNetworkPath: the same fixture server measured from
// host a directly and from host b through a delaying relay (a second
// network path: 40 ± 20 ms on the round trip; then 40 ms with 1% of the
// chunks held 200 ms) reads network-path in drip compare --by host, with
// the round trip's figure, never queue or "server slower".
func TestSecondHostReadsNetworkPath(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	bin := buildDrip(t)
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	upstream := strings.TrimPrefix(srv.URL, "http://")
	a := runHost(t, bin, srv.URL, "a", dir)
	for _, tc := range []struct {
		name string
		path delayrelay.Path
	}{
		{"40 ± 20 ms", delayrelay.Path{Delay: 20 * time.Millisecond, Jitter: 10 * time.Millisecond}},
		{"40 ms, 1% held 200 ms", delayrelay.Path{Delay: 20 * time.Millisecond, Hold: 200 * time.Millisecond, HoldShare: 0.01}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			up := tc.path
			up.Hold, up.HoldShare = 0, 0 // the request's way; the response's holds
			relay, err := delayrelay.Start(upstream, delayrelay.Config{Up: up, Down: tc.path, Seed: 29})
			if err != nil {
				t.Fatal(err)
			}
			defer relay.Close()
			b := runHost(t, bin, "http://"+relay.Addr(), "b", t.TempDir())
			verdict := compareByHost(t, bin, a, b)
			t.Logf("%s (chunks held: %d): %s", tc.name, relay.Held(), verdict)
			if !strings.HasPrefix(verdict, "network-path:") || strings.Contains(verdict, "queue:") || strings.Contains(verdict, "server is slower") {
				t.Fatalf("reading %q, want network-path", verdict)
			}
			m := regexp.MustCompile(`headers p50 moved \+([0-9.]+) ms`).FindStringSubmatch(verdict)
			if m == nil {
				t.Fatalf("reading %q names no headers move", verdict)
			}
			if rt, _ := strconv.ParseFloat(m[1], 64); rt < 30 || rt > 70 {
				t.Errorf("round trip grew %g ms, want about 40 (30–70)", rt)
			}
		})
	}
}

// runHost runs the steady scenario against url as host name (--host-label:
// --label host=… is refused, host being drip's own), returning its record
// file.
func runHost(t *testing.T, bin, url, name, dir string) string {
	t.Helper()
	out := filepath.Join(dir, name+".jsonl")
	cmd := exec.Command(bin, "run", url, "-m", "steady", "--runs", "24", "--concurrency", "4", "--host-label", name, "--no-tui", "--out", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("drip run (host %s): %v\n%s", name, err, b)
	}
	return out
}

// compareByHost is drip compare --by host's reading of b against a. The
// two hosts' targets differ (b's is the relay's port), which drip merge
// refuses as a different workload, so compare pools the two files itself.
func compareByHost(t *testing.T, bin, a, b string) string {
	t.Helper()
	cmd := exec.Command(bin, "compare", "--by", "host", a, b, "--json")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("drip compare: %v\n%s", err, stderr.String())
	}
	var c struct {
		Readings []struct {
			Verdict string `json:"verdict"`
			Clocks  []struct {
				Clock    string `json:"clock"`
				Evidence string `json:"evidence"`
			} `json:"clocks"`
		} `json:"readings"`
	}
	if err := json.Unmarshal(stdout.Bytes(), &c); err != nil || len(c.Readings) != 1 {
		t.Fatalf("compare --json: %v, %d readings\n%.2000s", err, len(c.Readings), stdout.String())
	}
	for _, m := range c.Readings[0].Clocks {
		t.Logf("  %s: %s", m.Clock, m.Evidence)
	}
	return c.Readings[0].Verdict
}
