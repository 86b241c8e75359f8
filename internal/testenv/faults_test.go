package testenv

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// With every segment from a port dropped, not even the handshake's answer
// comes back; once the test that dropped them ends, its table is gone and
// the port answers again.
func TestDropSegmentsLosesThemUntilTheTestEnds(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			c.Close()
		}
	}()
	addr := l.Addr().String()
	port := l.Addr().(*net.TCPAddr).Port
	t.Run("dropping", func(t *testing.T) {
		DropSegments(t, port, 100)
		if c, err := net.DialTimeout("tcp", addr, 300*time.Millisecond); err == nil {
			c.Close()
			t.Error("dialed a port whose every segment is dropped")
		}
	})
	out, err := exec.Command("nft", "list", "tables").CombinedOutput()
	if err != nil || strings.Contains(string(out), fmt.Sprintf("drip_loss_%d_", os.Getpid())) {
		t.Errorf("after the test, nft list tables: %s (%v): want no table of this test", out, err)
	}
	c, err := net.DialTimeout("tcp", addr, 5*time.Second)
	if err != nil {
		t.Fatalf("after the test the port still drops: %v", err)
	}
	c.Close()
}

// A busy loop inside a 3% quota is throttled by the kernel, and its
// cgroup is gone once the test ends.
func TestCPUQuotaThrottlesABusyLoop(t *testing.T) {
	var dir string
	t.Run("starved", func(t *testing.T) {
		procs := CPUQuota(t, 3)
		dir = filepath.Dir(procs)
		cmd := Starved(procs, "sh", "-c", "while :; do :; done")
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		defer func() { cmd.Process.Kill(); cmd.Wait() }()
		for deadline := time.Now().Add(10 * time.Second); ; time.Sleep(50 * time.Millisecond) {
			stat, _ := os.ReadFile(filepath.Join(dir, "cpu.stat"))
			if f := strings.Fields(string(stat)); len(f) >= 4 && f[2] == "nr_throttled" && f[3] != "0" {
				return
			}
			if time.Now().After(deadline) {
				t.Fatalf("a busy loop at 3%% of a core was never throttled: cpu.stat %q", stat)
			}
		}
	})
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("cgroup %s still there after the test: %v", dir, err)
	}
}
