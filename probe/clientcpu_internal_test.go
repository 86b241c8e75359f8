package probe

import (
	"os"
	"path/filepath"
	"testing"
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
// process's threads' counters, with pressure and steal as shares; without
// a /proc there are none.
func TestClientCPUFromProc(t *testing.T) {
	root := t.TempDir()
	defer func(old string) { procRoot = old }(procRoot)
	procRoot = root
	writeProc(t, root, "1000000", "0", "1000", "0")
	a := sampleCPU()
	writeProc(t, root, "5000000", "3000000", "1000", "100")
	b := sampleCPU()
	c := clientCPU(a, b)
	if c == nil || c.RunQueueWaitMS != 7 || c.OnCPUMS != 0 || c.Slices != 0 {
		t.Fatalf("client %+v, want a run-queue wait of 7 ms", c)
	}
	if c.PressurePct == nil || *c.PressurePct != 0 || c.StealPct == nil || *c.StealPct != 100 {
		t.Errorf("pressure %v steal %v, want 0 and 100", c.PressurePct, c.StealPct)
	}
	procRoot = filepath.Join(root, "absent")
	if c := clientCPU(sampleCPU(), sampleCPU()); c != nil {
		t.Errorf("no /proc: client %+v, want none", c)
	}
}
