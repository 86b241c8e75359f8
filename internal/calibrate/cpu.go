package calibrate

import (
	"os"
	"strconv"
	"strings"
	"time"
)

// cpuStat is the machine's CPU time so far in clock ticks, from
// /proc/stat's first line on Linux.
type cpuStat struct{ busy, total uint64 }

func readCPUStat() *cpuStat {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return nil
	}
	line, _, _ := strings.Cut(string(b), "\n")
	return parseCPUStat(line)
}

// parseCPUStat reads "cpu user nice system idle iowait irq softirq steal
// …". Busy is all but idle and iowait.
func parseCPUStat(line string) *cpuStat {
	f := strings.Fields(line)
	if len(f) < 5 || f[0] != "cpu" {
		return nil
	}
	var s cpuStat
	for i, v := range f[1:] {
		if i >= 8 { // guest time is already in user and nice
			break
		}
		n, err := strconv.ParseUint(v, 10, 64)
		if err != nil {
			return nil
		}
		s.total += n
		if i != 3 && i != 4 {
			s.busy += n
		}
	}
	return &s
}

// busyCores is how many of cores were busy on average between a and b.
func busyCores(a, b *cpuStat, cores int) *float64 {
	if a == nil || b == nil || b.total <= a.total {
		return nil
	}
	return new(float64(b.busy-a.busy) / float64(b.total-a.total) * float64(cores))
}

// processCPU is the CPU this process has used, user and system. It is
// nil where the system does not say.
func processCPU() *time.Duration {
	d, ok := rusage()
	if !ok {
		return nil
	}
	return &d
}
