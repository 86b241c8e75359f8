package probe

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/driplab/drip/record"
)

// procRoot is where the OS's process and pressure figures are read; a
// test points it at a tree of its own.
var procRoot = "/proc"

// cpuSample is one reading of what the OS says of this process and the
// machine: the process's threads' time on a core and waiting runnable
// (ns), the slices they got, the machine's CPU pressure (µs some task
// waited) and its CPU time with the stolen part (jiffies). ok is false
// where the process's schedstat cannot be read.
type cpuSample struct {
	at                 time.Time
	exec, wait, slices uint64
	pressure           uint64
	havePressure       bool
	cpuTotal, cpuSteal uint64
	haveStat, ok       bool
}

// sampleCPU reads the process's threads and the machine's counters: a few
// small files, once at a stream's start and once at its end, never on the
// read path.
func sampleCPU() cpuSample {
	s := cpuSample{at: time.Now()}
	tasks, _ := filepath.Glob(filepath.Join(procRoot, "self", "task", "*", "schedstat"))
	for _, t := range tasks {
		b, err := os.ReadFile(t)
		if err != nil {
			continue // a thread that ended meanwhile
		}
		f := bytes.Fields(b)
		if len(f) < 3 {
			continue
		}
		s.exec += parseU(f[0])
		s.wait += parseU(f[1])
		s.slices += parseU(f[2])
		s.ok = true
	}
	s.pressure, s.havePressure = readPressure()
	s.cpuTotal, s.cpuSteal, s.haveStat = readSteal()
	return s
}

// clientCPU is the OS's account of the window from a to b; nil when the
// process's schedstat could not be read at either end.
func clientCPU(a, b cpuSample) *record.ClientCPU {
	if !a.ok || !b.ok {
		return nil
	}
	win := b.at.Sub(a.at)
	c := &record.ClientCPU{
		WindowMS:       ms(win),
		RunQueueWaitMS: float64(sub(b.wait, a.wait)) / 1e6,
		OnCPUMS:        float64(sub(b.exec, a.exec)) / 1e6,
		Slices:         int(sub(b.slices, a.slices)),
	}
	if a.havePressure && b.havePressure && win > 0 {
		c.PressurePct = new(min(100, 100*float64(sub(b.pressure, a.pressure))/float64(win.Microseconds())))
	}
	if a.haveStat && b.haveStat && b.cpuTotal > a.cpuTotal {
		c.StealPct = new(100 * float64(sub(b.cpuSteal, a.cpuSteal)) / float64(b.cpuTotal-a.cpuTotal))
	}
	return c
}

// sub is b − a for counters, 0 when a thread that ended took its count
// with it.
func sub(b, a uint64) uint64 {
	if b < a {
		return 0
	}
	return b - a
}

func parseU(b []byte) uint64 {
	v, _ := strconv.ParseUint(string(b), 10, 64)
	return v
}

// readPressure is the "some" total of /proc/pressure/cpu: µs in which at
// least one task waited for a CPU.
func readPressure() (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(procRoot, "pressure", "cpu"))
	if err != nil {
		return 0, false
	}
	for line := range bytes.Lines(b) {
		if !bytes.HasPrefix(line, []byte("some ")) {
			continue
		}
		for _, f := range bytes.Fields(line) {
			if v, ok := bytes.CutPrefix(f, []byte("total=")); ok {
				return parseU(v), true
			}
		}
	}
	return 0, false
}

// readSteal is the machine's CPU time and its stolen part from the "cpu"
// line of /proc/stat (user nice system idle iowait irq softirq steal).
func readSteal() (total, steal uint64, ok bool) {
	f, err := os.Open(filepath.Join(procRoot, "stat"))
	if err != nil {
		return 0, 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	if !sc.Scan() {
		return 0, 0, false
	}
	fields := bytes.Fields(sc.Bytes())
	if len(fields) < 9 || string(fields[0]) != "cpu" {
		return 0, 0, false
	}
	for _, v := range fields[1:9] {
		total += parseU(v)
	}
	return total, parseU(fields[8]), true
}
