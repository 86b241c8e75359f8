package integration

import (
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// haproxyConf is haproxy in HTTP mode with its defaults, on loopback: no
// option http-no-delay, so it merges small writes and forwards a stream
// in bursts (docs/delivery.md).
const haproxyConf = `defaults
	mode http
	timeout connect 5s
	timeout client 30s
	timeout server 30s
frontend drip
	bind 127.0.0.1:%d
	default_backend fixture
backend fixture
	server fixture %s
`

// startHaproxy runs haproxy in front of upstream (host:port) until the
// test ends and returns its base URL.
func startHaproxy(t *testing.T, upstream string) string {
	t.Helper()
	base, _ := startPart(t, "haproxy", "apt-get install -y haproxy", func(bin, dir string, port int) (*exec.Cmd, error) {
		conf := filepath.Join(dir, "haproxy.cfg")
		err := os.WriteFile(conf, fmt.Appendf(nil, haproxyConf, port, upstream), 0o600)
		return exec.Command(bin, "-db", "-f", conf), err // -db: in the foreground, no daemon
	})
	return base
}

// Behind haproxy's defaults every stream stutters: bursts at a regular
// period with the freezes in the evidence, ITL end to end and within 10%
// of the schedule when the first frame passed at once (withheld when it
// was held), and the hint names an interval-forwarding proxy, not
// buffering. The fast scenario is left out: its whole answer (32 ms) fits
// in one of haproxy's intervals, so it is held whole, buffered.
func TestBehindHaproxyDefaults(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	base := startHaproxy(t, srv.Listener.Addr().String())
	for _, scenario := range []string{"steady", "mid-sentence-stall"} {
		t.Run(scenario, func(t *testing.T) {
			sched := scheduledSpacing(fixtures.Lookup(scenario))
			recs, s := runScenario(t, base, scenario, 4, nil)
			for _, r := range recs {
				t.Logf("stream %d: ttft %.4g ms, itl %v, delivery %s, freezes %+v", r.Seq, *r.TTFTMS, fmtPtr(r.ITLMS), delivery(r), freezes(r))
				checkStutter(t, r, sched)
			}
			if f := s.Freezes; f.Streams != len(recs) || f.Count < 3*len(recs) || f.PeriodMinMS == nil {
				t.Errorf("summary freezes %+v: want %d stutter streams, ≥ 3 freezes each", f, len(recs))
			}
			for _, d := range s.Diagnosis {
				t.Logf("hint %s: %s", d.Shape, d.Evidence)
			}
			got := shapes(s)
			if !contains(got, stats.ShapeProxyStutter) || contains(got, stats.ShapeProxyBuffering) || contains(got, stats.ShapeTransport) {
				t.Errorf("diagnosis %v: want proxy-stutter, neither proxy-buffering nor transport", got)
			}
		})
	}
}

// checkStutter holds one stream behind haproxy to the stutter class and
// its evidence; sched is the scenario's mean content spacing.
func checkStutter(t *testing.T, r *record.Record, sched float64) {
	t.Helper()
	d := r.Delivery
	if d == nil || d.Class != record.DeliveryStutter || r.Buffered || d.PeriodMS == nil || d.Freezes == nil || d.FirstHeld == nil {
		t.Errorf("stream %d: delivery %s: want class stutter with period, freezes and first_held", r.Seq, delivery(r))
		return
	}
	if d.Freezes.Count < stats.StutterMinFreezes || d.Freezes.LongestMS < d.Freezes.P50MS || *d.PeriodMS <= 0 {
		t.Errorf("stream %d: freezes %+v period %v", r.Seq, *d.Freezes, *d.PeriodMS)
	}
	switch {
	case *d.FirstHeld && r.ITLMS != nil:
		t.Errorf("stream %d: first content held, itl %v: want withheld", r.Seq, *r.ITLMS)
	case !*d.FirstHeld && (r.ITLMS == nil || math.Abs(*r.ITLMS-sched) > 0.1*sched):
		t.Errorf("stream %d: first frame passed at once, itl %v: want within 10%% of the schedule's %.4g ms", r.Seq, fmtPtr(r.ITLMS), sched)
	}
}

func freezes(r *record.Record) string {
	if r.Delivery == nil || r.Delivery.Freezes == nil {
		return "none"
	}
	return fmt.Sprintf("%+v every %v ms, first held %v", *r.Delivery.Freezes, *r.Delivery.PeriodMS, *r.Delivery.FirstHeld)
}

func fmtPtr(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.4g", *v)
}
