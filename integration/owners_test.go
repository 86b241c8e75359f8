package integration

import (
	"encoding/json"
	"fmt"
	"net"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/testenv"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// The rows of docs/owners.md that need a real part beside drip run: a
// reader starved by a CPU quota, and one on a machine whose cores two
// busy loops hold.

// runStarved runs the drip binary against url inside a cgroup that lets
// it pct percent of one core, and returns its records and summary.
func runStarved(t *testing.T, url string, pct int, args ...string) ([]*record.Record, stats.Summary) {
	t.Helper()
	bin := buildDrip(t)
	procs := testenv.CPUQuota(t, pct)
	out := filepath.Join(t.TempDir(), "runs.jsonl")
	cmd := testenv.Starved(procs, bin, append([]string{"run", url, "--json", "--out", out}, args...)...)
	stdout, err := cmd.Output()
	if err != nil {
		t.Fatalf("drip run at %d%% of a core: %v\n%s", pct, err, stdout)
	}
	var s stats.Summary
	if err := json.Unmarshal(stdout, &s); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	return readRecords(t, out), s
}

// A reader held to 1% of a core by a CPU quota, four streams at once,
// takes what its kernel had received late: the run is client-limited
// with the reader's lag as its evidence. (At 3% drip's Go reader of
// these streams keeps up once started: only its first reads are late.)
// A stream's lag is its newest segment's, so a late read of a stream
// that sends every 25 ms shows at most about 25 ms: not every stream
// need pass the late rule, the run must.
func TestOwnersReaderStarvedByACPUQuotaIsLate(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	recs, s := runStarved(t, srv.URL, 1, "-m", "steady", "--runs", "4", "--concurrency", "4")
	for _, r := range recs {
		t.Logf("stream %d at 1%% of a core: %s", r.Seq, witnessText(r.Witness))
	}
	var ev string
	for _, d := range s.Diagnosis {
		if d.Shape == stats.ShapeClientLimited {
			ev = d.Evidence
		}
	}
	if !strings.Contains(ev, "late reader") || !strings.Contains(ev, "reader lag") {
		t.Errorf("diagnosis %v, client-limited evidence %q: want client-limited on the reader's lag", shapes(s), ev)
	}
}

// A reader on a machine whose two cores two busy loops hold keeps up:
// its lag stays under ReaderLateMS at p99, no stream is late, and the
// run is not client-limited. Its busy loops hold the whole machine, so it
// runs alone.
func TestOwnersReaderOnABusyMachineKeepsUp(t *testing.T) {
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	busyLoops(t, 2)
	recs, s := runScenario(t, srv.URL, "steady", 3, nil)
	for _, r := range recs {
		w := r.Witness
		if w == nil || w.Late || w.LagP99MS == nil {
			t.Errorf("stream %d beside two busy loops: %s; want stamped and not late", r.Seq, witnessText(w))
			continue
		}
		t.Logf("stream %d: lag p50 %.3g p99 %.3g max %.3g ms", r.Seq, *w.LagP50MS, *w.LagP99MS, *w.LagMaxMS)
	}
	if got := shapes(s); slices.Contains(got, stats.ShapeClientLimited) {
		t.Errorf("diagnosis %v: a reader that kept up named the bottleneck", got)
	}
}

// witnessText is what a stream's witness says of its reader.
func witnessText(w *record.Witness) string {
	if w == nil {
		return "no witness"
	}
	return fmt.Sprintf("%d reads, lag p50 %s p99 %s max %s ms, reader merges %d, socket merges %d, late %v",
		len(w.Reads), num(w.LagP50MS), num(w.LagP99MS), num(w.LagMaxMS), w.ReaderMerges, w.SocketMerges, w.Late)
}

// heldWord finds "held" as a word ("withheld" is ITL's, not a hold).
var heldWord = regexp.MustCompile(`\bheld\b`)

// hasAny says whether shapes holds any of want.
func hasAny(shapes []string, want ...string) bool {
	for _, w := range want {
		if slices.Contains(shapes, w) {
			return true
		}
	}
	return false
}

// A server that writes tokens in batches (4–8 words a write every
// 150–220 ms), direct over loopback: the hint names both owners it could
// be, a proxy's interval and the server's batches, and drip hops to tell
// them apart; nothing is said held.
func TestOwnersBatchingServerNamesBothOwners(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	_, s := runScenario(t, srv.URL, "batched", 4, nil)
	var hint string
	for _, d := range s.Diagnosis {
		if d.Shape == stats.ShapeProxyStutter || d.Shape == stats.ShapeProxyBuffering {
			hint = d.Hint
		}
	}
	if !strings.Contains(hint, "a proxy") || !strings.Contains(hint, "the server writing tokens in batches") || !strings.Contains(hint, "drip hops") || heldWord.MatchString(hint) {
		t.Errorf("diagnosis %v, hint %q: want a proxy and the server's batches named, drip hops to tell them apart, nothing held", shapes(s), hint)
	}
}

// A server's own 700 ms pause mid-answer, direct over loopback: the
// server's stall, and the transport hint's proxy is not suspected.
func TestOwnersServerStallIsTheServers(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	_, s := runScenario(t, srv.URL, "mid-sentence-stall", 4, nil)
	if got := shapes(s); !slices.Contains(got, stats.ShapeServerStalls) || hasAny(got, stats.ShapeTransport, stats.ShapeProxyStutter, stats.ShapeProxyBuffering) {
		t.Errorf("diagnosis %v, witness silences %+v: want server-stalls, no proxy or transport", got, s.Witness.Silences)
	}
}

// 10% of the server's data segments dropped by the kernel (nftables),
// direct over loopback: the freezes the loss makes are the network's,
// never a proxy's stutter or a hop's uneven delivery.
func TestOwnersPacketLossIsTheNetworks(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	testenv.DropDataSegments(t, srv.Listener.Addr().(*net.TCPAddr).Port, 10)
	_, s := runScenario(t, srv.URL, "steady", 6, nil)
	w := s.Witness
	t.Logf("diagnosis %v; witness: %d out-of-order, %d retransmits, silences %+v", shapes(s), w.OutOfOrder, w.Retransmits, w.Silences)
	if got := shapes(s); hasAny(got, stats.ShapeTransport, stats.ShapeProxyStutter, stats.ShapeProxyBuffering) ||
		w.Silences.Loss > 0 && !slices.Contains(got, stats.ShapeNetworkLoss) {
		t.Errorf("diagnosis %v: want no proxy or transport, and network-loss where silences ended in loss", got)
	}
	if w.OutOfOrder == 0 {
		t.Errorf("the client's kernel counted no out-of-order segment with 10%% dropped")
	}
}
