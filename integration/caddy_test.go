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

// caddyConf is Debian's caddy as a reverse proxy with its defaults on
// loopback, its admin endpoint off, save one: it reads each request's
// body whole before proxying it (buffer_requests). With the default,
// caddy 2.6 (Go 1.19) copies the client's body to the upstream while its
// own server, once the upstream's headers are written back, discards or
// closes that body; the copy's last read then fails, Go's transport
// closes the upstream connection under the response, and about one
// response in 15 ends with no body ("reading from backend: use of closed
// network connection"). docs/delivery.md has the evidence.
const caddyConf = `{"admin": {"disabled": true}, "apps": {"http": {"servers": {"drip": {
	"listen": ["127.0.0.1:%d"],
	"routes": [{"handle": [{"handler": "reverse_proxy", "buffer_requests": true, "upstreams": [{"dial": %q}]}]}]}}}}}`

// startCaddy runs caddy in front of upstream (host:port) until the test
// ends and returns its base URL; its data and config stay in the test's
// own directory.
func startCaddy(t *testing.T, upstream string) string {
	t.Helper()
	base, _ := startPart(t, "caddy", "apt-get install -y caddy", func(bin, dir string, port int) (*exec.Cmd, error) {
		conf := filepath.Join(dir, "caddy.json")
		err := os.WriteFile(conf, fmt.Appendf(nil, caddyConf, port, upstream), 0o600)
		cmd := exec.Command(bin, "run", "--config", conf)
		cmd.Env = append(os.Environ(), "HOME="+dir, "XDG_DATA_HOME="+dir, "XDG_CONFIG_HOME="+dir)
		return cmd, err
	})
	return base
}

// Behind caddy's defaults (it flushes an event stream as it comes) the
// steady stream is clean and its ITL within 10% of the schedule, every
// stream complete: with the request buffered none ends empty.
func TestBehindCaddyDefaults(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	base := startCaddy(t, srv.Listener.Addr().String())
	sched := scheduledSpacing(fixtures.Lookup("steady"))
	recs, s := streamScenario(t, base, "steady", 6, nil)
	for _, r := range recs {
		if r.Status != record.StatusComplete || r.Delivery == nil || r.Delivery.Class != record.DeliveryClean || r.ITLMS == nil {
			t.Errorf("stream %d: %s, %d reads, delivery %s, itl %v: want complete, class clean, ITL reported", r.Seq, r.Status, r.Reads, delivery(r), r.ITLMS)
			continue
		}
		if math.Abs(*r.ITLMS-sched) > 0.1*sched {
			t.Errorf("stream %d: itl %.4g ms, the schedule %.4g ms: more than 10%% off", r.Seq, *r.ITLMS, sched)
		}
	}
	if got := shapes(s); contains(got, stats.ShapeProxyBuffering) || contains(got, stats.ShapeProxyStutter) {
		t.Errorf("diagnosis %v names a proxy", got)
	}
}
