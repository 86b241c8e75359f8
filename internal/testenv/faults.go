package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// faults numbers the tables and cgroups the tests of this process make,
// so tests running at once never share one.
var faults atomic.Int64

// faultName is a name no other test, nor another test process, uses.
func faultName(kind string) string {
	return fmt.Sprintf("drip_%s_%d_%d", kind, os.Getpid(), faults.Add(1))
}

// DropSegments drops pct percent of the TCP segments sent from port on
// this machine (loopback included), at random, until the test ends. That
// is real packet loss, which the kernel recovers by retransmitting. It
// adds an nftables table of its own and deletes it when the test ends. It
// needs nft and root, and ends the test through Missing without them.
func DropSegments(t testing.TB, port, pct int) {
	t.Helper()
	dropSegments(t, port, pct, nil)
}

// DropDataSegments is DropSegments sparing the handshake (segments with
// SYN set), for a test of what loss does to a stream, not to its connection's
// setup, whose lost answer costs a one-second retry before any data.
func DropDataSegments(t testing.TB, port, pct int) {
	t.Helper()
	dropSegments(t, port, pct, []string{"tcp", "flags", "&", "syn", "==", "0"})
}

// dropSegments adds the table that drops pct percent of port's segments
// that also match match.
func dropSegments(t testing.TB, port, pct int, match []string) {
	t.Helper()
	nft := LookPath(t, "nft", "apt-get install -y nftables")
	if os.Geteuid() != 0 {
		Missing(t, "root, to add an nftables table", "run the test as root")
	}
	table := faultName("loss")
	run := func(args ...string) error {
		if out, err := exec.Command(nft, args...).CombinedOutput(); err != nil {
			return fmt.Errorf("nft %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return nil
	}
	if err := run("add", "table", "inet", table); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := run("delete", "table", "inet", table); err != nil {
			t.Error(err)
		}
	})
	err := run("add", "chain", "inet", table, "c", "{ type filter hook input priority 0; }")
	if err == nil {
		rule := append([]string{"add", "rule", "inet", table, "c", "tcp", "sport", strconv.Itoa(port)}, match...)
		if pct < 100 { // nft takes no share of 100 out of 100
			rule = append(rule, "numgen", "random", "mod", "100", "<", strconv.Itoa(pct))
		}
		err = run(append(rule, "drop")...)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// cgroupV1CPU is where cgroup v1's cpu controller is mounted, when it is.
const cgroupV1CPU = "/sys/fs/cgroup/cpu"

// CPUQuota makes a cgroup that lets its processes run pct percent of one
// core (cgroup v1's cpu.cfs_quota_us, or v2's cpu.max) and returns its
// cgroup.procs file. A process whose PID is written there runs starved.
// The cgroup is removed when the test ends, after its processes are
// killed (the test started them). It needs root and a cpu controller, and
// ends the test through Missing without them.
func CPUQuota(t testing.TB, pct int) string {
	t.Helper()
	if os.Geteuid() != 0 {
		Missing(t, "root, to make a cgroup", "run the test as root")
	}
	dir, files := "", map[string]string{}
	period := 100000
	if _, err := os.Stat(filepath.Join(cgroupV1CPU, "cpu.cfs_quota_us")); err == nil {
		dir = filepath.Join(cgroupV1CPU, faultName("cpu"))
		files["cpu.cfs_period_us"] = strconv.Itoa(period)
		files["cpu.cfs_quota_us"] = strconv.Itoa(period * pct / 100)
	} else if c, _ := os.ReadFile("/sys/fs/cgroup/cgroup.controllers"); strings.Contains(string(c), "cpu") {
		dir = filepath.Join("/sys/fs/cgroup", faultName("cpu"))
		files["cpu.max"] = fmt.Sprintf("%d %d", period*pct/100, period)
	} else {
		Missing(t, "a cgroup cpu controller (v1 cpu or v2 cpu.max)", "mount cgroup v1's cpu controller or enable v2's cpu")
	}
	if err := os.Mkdir(dir, 0o755); err != nil {
		t.Fatal(err)
	}
	procs := filepath.Join(dir, "cgroup.procs")
	t.Cleanup(func() { removeCgroup(t, dir, procs) })
	for name, v := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(v), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return procs
}

// removeCgroup kills what still runs in the test's cgroup and removes
// it. A cgroup goes only once its last process has exited.
func removeCgroup(t testing.TB, dir, procs string) {
	for range 100 {
		b, _ := os.ReadFile(procs)
		pids := strings.Fields(string(b))
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil {
				if proc, err := os.FindProcess(pid); err == nil {
					proc.Kill()
				}
			}
		}
		if err := os.Remove(dir); err == nil || os.IsNotExist(err) {
			return
		}
		time.Sleep(20 * time.Millisecond) // a killed process takes a moment to exit
	}
	t.Errorf("cgroup %s: still busy after its processes were killed", dir)
}

// Starved is name with args as a command that starts inside the cgroup
// whose cgroup.procs is procs (CPUQuota). A shell writes its own PID
// there and then becomes the command, so no instruction runs unstarved.
func Starved(procs, name string, args ...string) *exec.Cmd {
	return exec.Command("sh", append([]string{"-c", `echo $$ > "$0" && exec "$@"`, procs, name}, args...)...)
}
