package integration

import (
	"context"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/integration/delayrelay"
	"github.com/driplab/drip/internal/hops"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/recorder"
	"github.com/driplab/drip/stats"
)

// chain is the fixture server with drip record in front of it, as a relay
// runs beside a model server: what the relay recorded is in records.
type chain struct {
	fx    *fixtures.Server
	relay *recorder.Proxy
	addr  string // the relay's host:port
	mu    sync.Mutex
	recs  []*record.Record
}

func newChain(t *testing.T) *chain {
	t.Helper()
	c := &chain{fx: fixtures.NewServer()}
	srv := httptest.NewServer(c.fx)
	t.Cleanup(srv.Close)
	u, _ := url.Parse(srv.URL)
	c.relay = recorder.New(context.Background(), recorder.Options{Upstream: u}, func(r *record.Record) {
		c.mu.Lock()
		defer c.mu.Unlock()
		c.recs = append(c.recs, r)
	})
	rs := httptest.NewServer(c.relay)
	t.Cleanup(rs.Close)
	c.addr = rs.Listener.Addr().String()
	return c
}

// hopsOf streams model once from base (the client's end of the path)
// and puts the client's record beside the relay's.
func (c *chain) hopsOf(t *testing.T, base, model string) (hops.Stream, *hops.Report, []fixtures.Write) {
	t.Helper()
	client, _ := runScenario(t, base, model, 1, nil)
	c.relay.Wait()
	c.mu.Lock()
	relay := c.recs
	c.recs = nil
	c.mu.Unlock()
	rep, err := hops.Analyse(hops.File{Name: "client", Records: client}, []hops.File{{Name: "relay", Records: relay}})
	if err != nil {
		t.Fatal(err)
	}
	if len(rep.Streams) != 1 || rep.Streams[0].MatchedBy != hops.ByID {
		t.Fatalf("%d streams matched (%+v), want 1 by id", len(rep.Streams), rep.Streams)
	}
	return rep.Streams[0], rep, c.fx.Writes(model)
}

// scheduledStalls are the scenario's gaps between content steps of a
// stall or more, and serverStalls the same gaps in the server's writes.
func scheduledStalls(sc *fixtures.Scenario) []float64 {
	var out []float64
	prev := time.Duration(-1)
	for _, st := range sc.Steps {
		if st.Kind.IsContent() {
			if prev >= 0 && st.At-prev >= time.Duration(stats.DefaultStall)*time.Millisecond {
				out = append(out, float64(st.At-prev)/float64(time.Millisecond))
			}
			prev = st.At
		}
	}
	return out
}

func serverStalls(ws []fixtures.Write) []float64 {
	var out []float64
	var prev time.Time
	for _, w := range ws {
		if w.Kind.IsContent() {
			if g := float64(w.At.Sub(prev)) / float64(time.Millisecond); !prev.IsZero() && g >= stats.DefaultStall {
				out = append(out, g)
			}
			prev = w.At
		}
	}
	return out
}

// upstreamStalls are the relay's stalls hops put inside the client's
// silences, and the client's stalls owned upstream alone (a relay stall
// the client saw as it was).
func upstreamStalls(s hops.Stream) []float64 {
	var out []float64
	for _, st := range s.Stalls {
		for _, u := range st.Upstream {
			out = append(out, u.GapMS)
		}
	}
	return out
}

// near says got and want are as long, each within tol ms of the other's.
func near(got, want []float64, tol float64) bool {
	if len(got) != len(want) {
		return false
	}
	for i := range got {
		if math.Abs(got[i]-want[i]) > tol {
			return false
		}
	}
	return true
}

func describe(s hops.Stream) string {
	var b strings.Builder
	fmt.Fprintf(&b, "ttft %s = upstream %s + path %s ms; path delay p50 %s p99 %s max %s ms; stalls:",
		num(s.TTFT.ClientMS), num(s.TTFT.UpstreamMS), num(s.TTFT.PathMS), num(s.Delay.P50), num(s.Delay.P99), num(s.Delay.Max))
	for _, st := range s.Stalls {
		fmt.Fprintf(&b, " [%s %.1fms %s: %.1f upstream %v + %.1f path]", st.Kind, st.GapMS, st.Owner, st.UpstreamMS, upstreamStalls(hops.Stream{Stalls: []hops.Stall{st}}), st.PathMS)
	}
	return b.String()
}

func num(v *float64) string {
	if v == nil {
		return "null"
	}
	return fmt.Sprintf("%.3g", *v)
}

// checkUpstreamStalls checks that the stalls hops called the upstream's
// are the server's own, within 2 ms, and the schedule's whenever the
// server kept it (within 1 ms).
func checkUpstreamStalls(t *testing.T, s hops.Stream, ws []fixtures.Write, sc *fixtures.Scenario) {
	t.Helper()
	got, server, sched := upstreamStalls(s), serverStalls(ws), scheduledStalls(sc)
	if !near(got, server, 2) {
		t.Errorf("upstream stalls %.4g ms, the server's writes had %.4g ms: want the same within 2 ms (%s)", got, server, describe(s))
	}
	if near(server, sched, 1) && !near(got, sched, 2) {
		t.Errorf("upstream stalls %.4g ms, the schedule's %.4g ms (kept by the server): want them within 2 ms", got, sched)
	}
}

// Fixture server → drip record → nginx with buffering → drip run: the
// 700 and 300 ms stalls are the upstream's, nginx's holds the path's, and
// the TTFT split puts nginx's hold on the first content in the path.
func TestHopsBehindBufferingNginx(t *testing.T) {
	c := newChain(t)
	base, _ := startNginx(t, c.addr, buffering)
	sc := fixtures.Lookup("mid-sentence-stall")
	for i := range 3 {
		s, rep, ws := c.hopsOf(t, base, fmt.Sprintf("mid-sentence-stall#hops-nginx-%d", i))
		t.Logf("stream %d: %s; verdict %s", i, describe(s), rep.Verdict.Text)
		checkUpstreamStalls(t, s, ws, sc)
		for _, st := range s.Stalls {
			if st.Owner == hops.OwnerUpstream || st.PathMS < stats.DefaultStall || st.PathMS != st.GapMS-st.UpstreamMS {
				t.Errorf("stall %+v: want nginx's hold in it owned by the path (path or both), its path share the client's gap less the relay's stalls", st)
			}
		}
		if len(s.Stalls) == 0 || s.TTFT.PathMS == nil || *s.TTFT.PathMS < stats.DefaultStall || *s.TTFT.PathMS != *s.TTFT.ClientMS-*s.TTFT.UpstreamMS {
			t.Errorf("%s: want stalls, and nginx's hold on the first content in the TTFT's path share", describe(s))
		}
		if rep.Verdict.Rule != hops.RulePathHolds {
			t.Errorf("verdict %+v, want %s", rep.Verdict, hops.RulePathHolds)
		}
	}
}

// Client → drip record directly: no stall is the path's, and on an idle
// machine the path adds under 1 ms per frame at p99 (a loaded one gets
// five tries, each said).
func TestHopsDirect(t *testing.T) {
	c := newChain(t)
	sc := fixtures.Lookup("mid-sentence-stall")
	var p99s []float64
	for i := 0; i < 5; i++ {
		s, _, ws := c.hopsOf(t, "http://"+c.addr, fmt.Sprintf("mid-sentence-stall#hops-direct-%d", i))
		t.Logf("try %d: %s", i, describe(s))
		checkUpstreamStalls(t, s, ws, sc)
		for _, st := range s.Stalls {
			if st.Owner != hops.OwnerUpstream {
				t.Errorf("stall %+v owned by %s: want upstream", st, st.Owner)
			}
		}
		p99s = append(p99s, *s.Delay.P99)
		if *s.Delay.P99 < 1 {
			return
		}
	}
	t.Errorf("path delay per frame p99 %.3g ms in 5 tries: want under 1 ms in one", p99s)
}

// Client ← a delaying relay (40 ± 20 ms each way) ← drip record: the path
// owns the jitter (its delay per frame spreads over the jitter's 40 ms,
// 20 more allowed for a loaded machine and a chunk held behind a later
// one, and the TTFT's path share holds the two trips), the upstream the
// schedule.
func TestHopsThroughADelayingPath(t *testing.T) {
	c := newChain(t)
	p := delayrelay.Path{Delay: 40 * time.Millisecond, Jitter: 20 * time.Millisecond}
	dr, err := delayrelay.Start(c.addr, delayrelay.Config{Up: p, Down: p, Seed: 30})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dr.Close() })
	sc := fixtures.Lookup("mid-sentence-stall")
	for i := range 3 {
		s, rep, ws := c.hopsOf(t, "http://"+dr.Addr(), fmt.Sprintf("mid-sentence-stall#hops-delay-%d", i))
		t.Logf("stream %d: %s; verdict %s", i, describe(s), rep.Verdict.Text)
		checkUpstreamStalls(t, s, ws, sc)
		for _, st := range s.Stalls {
			if st.Owner != hops.OwnerUpstream || st.PathMS > 60 {
				t.Errorf("stall %+v: want the upstream's, the path's share within the jitter's", st)
			}
		}
		if d := s.Delay; *d.P50 < 5 || *d.Max > 60 || *s.TTFT.PathMS < 40 {
			t.Errorf("%s: want the path's delay per frame spread (p50 over 5 ms, max under 60) and 40 ms or more of TTFT the path's", describe(s))
		}
		if rep.Verdict.Rule != hops.RuleUpstreamStall {
			t.Errorf("verdict %+v, want %s", rep.Verdict, hops.RuleUpstreamStall)
		}
	}
}
