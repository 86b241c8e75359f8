package probe

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/record"
)

// writeProc writes a /proc tree: two threads' schedstat, the CPU pressure
// and the cpu line of /proc/stat.
func writeProc(t *testing.T, root string, wait1, wait2, pressureUS, steal string) {
	files := map[string]string{
		"self/task/1/schedstat": "3000000 " + wait1 + " 10\n",
		"self/task/2/schedstat": "1000000 " + wait2 + " 5\n",
		"pressure/cpu":          "some avg10=50.00 avg60=10.00 avg300=1.00 total=" + pressureUS + "\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		"stat":                  "cpu  100 0 100 700 0 0 0 " + steal + " 0 0\ncpu0 1 2 3\n",
	}
	for name, body := range files {
		p := filepath.Join(root, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestClientCPUFromProc: the window's figures are the differences of the
// process's threads' counters, the run-queue wait the longest one thread
// waited (4 ms, not the 7 ms both waited), with pressure and steal as
// shares; without a /proc there are none.
func TestClientCPUFromProc(t *testing.T) {
	t.Parallel()
	root := t.TempDir()
	writeProc(t, root, "1000000", "0", "1000", "0")
	a := sampleCPU(root)
	writeProc(t, root, "5000000", "3000000", "1000", "100")
	b := sampleCPU(root)
	c := clientCPU(a, b)
	if c == nil || c.MaxThreadWaitMS != 4 || c.OnCPUMS != 0 || c.Slices != 0 || c.Threads != 2 {
		t.Fatalf("client %+v, want the longest one thread waited, 4 ms, of 2 threads", c)
	}
	if c.PressurePct == nil || *c.PressurePct != 0 || c.StealPct == nil || *c.StealPct != 100 {
		t.Errorf("pressure %v steal %v, want 0 and 100", c.PressurePct, c.StealPct)
	}
	absent := filepath.Join(root, "absent")
	if c := clientCPU(sampleCPU(absent), sampleCPU(absent)); c != nil {
		t.Errorf("no /proc: client %+v, want none", c)
	}
}

// TestCPUSamplerAttachesByTime: a stream's figures are the window from the
// reading newest at its start to the one newest at its end; a stream that
// saw no new reading gets the last interval, a copy of its own; before a
// second reading, or without a sampler, there is none.
func TestCPUSamplerAttachesByTime(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		root := t.TempDir()
		writeProc(t, root, "1000000", "0", "1000", "0")
		s := startCPUSampler(root)
		defer s.Stop()
		start := s.mark()
		if c := s.since(start); c != nil {
			t.Errorf("one reading: %+v, want none", c)
		}
		writeProc(t, root, "5000000", "3000000", "126000", "100")
		time.Sleep(CPUSampleEvery)
		synctest.Wait()
		c := s.since(start)
		if c == nil || c.WindowMS != 250 || c.MaxThreadWaitMS != 4 || c.PressurePct == nil || *c.PressurePct != 50 {
			t.Fatalf("window over one interval: %+v, want 250 ms, 4 ms waited, 50%% pressure", c)
		}
		short := s.mark()
		c1, c2 := s.since(short), s.since(short)
		if c1 == nil || c1.WindowMS != 250 || c1.MaxThreadWaitMS != 4 || c1 == c2 || c1.PressurePct == c2.PressurePct {
			t.Errorf("a stream within one interval: %+v and %+v, want copies of the last interval", c1, c2)
		}
		if n := s.taken.Load(); n != 2 {
			t.Errorf("%d readings in one interval, want 2", n)
		}
	})
	var none *CPUSampler
	if c := none.since(none.mark()); c != nil {
		t.Errorf("no sampler: %+v, want none", c)
	}
}

// TestRunReadsTheOSAtItsOwnPace: 100 streams of a run read no /proc
// themselves. The run's sampler took one reading per interval however many
// streams started and ended, and every stream has its figures from them.
func TestRunReadsTheOSAtItsOwnPace(t *testing.T) {
	t.Parallel()
	synctest.Test(t, func(t *testing.T) {
		srv := memnet.NewServer(fixtures.NewServer())
		defer srv.Close()
		root := t.TempDir()
		writeProc(t, root, "1000000", "0", "1000", "0")
		s := startCPUSampler(root)
		defer s.Stop()
		time.Sleep(CPUSampleEvery) // an interval before the run
		u, f, err := ResolveURL(srv.URL, "auto")
		if err != nil {
			t.Fatal(err)
		}
		p := Plan{
			Target:  Target{URL: u, Format: f, Request: adapters.Request{Model: "steady", Prompt: "hi"}},
			Options: Options{Dial: srv.Dial, CPU: s, ConnectTurns: make(chan struct{}, 100)},
			Runs:    100, Concurrency: 100,
		}
		var recs []*record.Record
		t0 := time.Now()
		Run(context.Background(), p, func(r *record.Record) { recs = append(recs, r) }, nil)
		intervals := int64(time.Since(t0)/CPUSampleEvery) + 1
		if n := s.taken.Load(); n > intervals+1 {
			t.Errorf("%d readings for 100 streams over %d intervals, want at most %d", n, intervals, intervals+1)
		}
		for _, r := range recs {
			if r.Status != record.StatusComplete || r.ClientCPU == nil || r.ClientCPU.WindowMS < 250 {
				t.Fatalf("stream %d: %s, client %+v; want complete with a window of the sampler's", r.Seq, r.Status, r.ClientCPU)
			}
		}
	})
}
