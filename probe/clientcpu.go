package probe

import (
	"bufio"
	"bytes"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/driplab/drip/record"
)

// procRoot is where the OS's process and pressure figures are read.
const procRoot = "/proc"

// CPUSampleEvery is how often a CPUSampler reads the OS's figures. Four
// readings a second bound the window a stream's figures are off by, and
// cost about a millisecond of CPU a second however many streams run.
const CPUSampleEvery = 250 * time.Millisecond

// CPUSampler reads what the OS says of this process and the machine
// (record.ClientCPU) from one goroutine, CPUSampleEvery, for as long as a
// run lasts. Streams never read /proc themselves: each keeps the reading
// that was newest when it started and, at its end, takes the window from
// it to the newest one. Reading every thread's file at each stream's start
// and end cost in proportion to streams × threads, all at once when many
// streams started or ended together, and made drip late to its own reads.
//
// A nil *CPUSampler is valid and gives no figures.
type CPUSampler struct {
	root   string // procRoot, or a test's tree
	latest atomic.Pointer[cpuSample]
	taken  atomic.Int64 // readings so far, for tests
	stop   func()
	done   chan struct{}
}

// StartCPUSampler takes a first reading now and then one every
// CPUSampleEvery until Stop. Where the process's threads cannot be read
// (not Linux) it reads nothing more, and gives no figures.
func StartCPUSampler() *CPUSampler { return startCPUSampler(procRoot) }

func startCPUSampler(root string) *CPUSampler {
	stop := make(chan struct{})
	s := &CPUSampler{root: root, stop: sync.OnceFunc(func() { close(stop) }), done: make(chan struct{})}
	if first := s.read(nil); !first.ok {
		close(s.done)
		return s
	}
	go s.loop(stop)
	return s
}

// Stop ends the sampler's goroutine and waits for it.
func (s *CPUSampler) Stop() {
	if s == nil {
		return
	}
	s.stop()
	<-s.done
}

func (s *CPUSampler) loop(stop <-chan struct{}) {
	defer close(s.done)
	t := time.NewTicker(CPUSampleEvery)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
			s.read(s.latest.Load())
		}
	}
}

// read takes a reading, with the interval since prev, and makes it the
// newest.
func (s *CPUSampler) read(prev *cpuSample) *cpuSample {
	c := sampleCPU(s.root)
	if prev != nil {
		c.interval = clientCPU(prev, c)
	}
	s.latest.Store(c)
	s.taken.Add(1)
	return c
}

// mark is the newest reading, kept by a stream at its start: an atomic
// load, nothing read from the OS.
func (s *CPUSampler) mark() *cpuSample {
	if s == nil {
		return nil
	}
	return s.latest.Load()
}

// since is the OS's account of the window from the reading a stream kept
// at its start (mark) to the newest. A stream that ended before a new
// reading came gets the last whole interval before its end instead, so
// its figures are of the moment it ran, a window of CPUSampleEvery. Nil
// without readings of the process's threads.
func (s *CPUSampler) since(a *cpuSample) *record.ClientCPU {
	b := s.mark()
	if a == nil || b == nil {
		return nil
	}
	if a == b {
		return cloneCPU(b.interval)
	}
	return clientCPU(a, b)
}

// threadStat is one thread's schedstat: its time on a core and waiting
// runnable (ns), and the slices it got.
type threadStat struct {
	tid                int
	exec, wait, slices uint64
}

// cpuSample is one reading of what the OS says of this process and the
// machine: each thread's schedstat (by tid), the machine's CPU pressure
// (µs some task waited) and its CPU time with the stolen part (jiffies).
// ok is false where the process's threads cannot be read. A reading is
// never changed once taken, so streams share it without a lock.
type cpuSample struct {
	at                 time.Time
	threads            []threadStat
	pressure           uint64
	havePressure       bool
	cpuTotal, cpuSteal uint64
	haveStat, ok       bool
	// interval is the window from the reading before to this one; nil
	// for the first.
	interval *record.ClientCPU
}

// cloneCPU copies c for a stream of its own: stats writes the derived
// fields into each stream's.
func cloneCPU(c *record.ClientCPU) *record.ClientCPU {
	if c == nil {
		return nil
	}
	d := *c
	if c.PressurePct != nil {
		d.PressurePct = new(*c.PressurePct)
	}
	if c.StealPct != nil {
		d.StealPct = new(*c.StealPct)
	}
	return &d
}

// sampleCPU reads the process's threads and the machine's counters under
// root. Only a CPUSampler calls it.
func sampleCPU(root string) *cpuSample {
	s := &cpuSample{at: time.Now()}
	s.threads, s.ok = readThreads(root)
	s.pressure, s.havePressure = readPressure(root)
	s.cpuTotal, s.cpuSteal, s.haveStat = readSteal(root)
	return s
}

// readThreads reads every thread's schedstat, sorted by tid.
func readThreads(root string) ([]threadStat, bool) {
	dir := filepath.Join(root, "self", "task")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil, false
	}
	threads := make([]threadStat, 0, len(ents))
	for _, e := range ents {
		tid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile(filepath.Join(dir, e.Name(), "schedstat"))
		if err != nil {
			continue // a thread that ended meanwhile
		}
		f := bytes.Fields(b)
		if len(f) < 3 {
			continue
		}
		threads = append(threads, threadStat{tid: tid, exec: parseU(f[0]), wait: parseU(f[1]), slices: parseU(f[2])})
	}
	slices.SortFunc(threads, func(x, y threadStat) int { return x.tid - y.tid })
	return threads, len(threads) > 0
}

// clientCPU is the OS's account of the window from a to b; nil when the
// process's threads could not be read at either end. The run-queue wait
// is the longest any one thread waited in the window: drip's 7–8 threads
// summed could wait several times the window on a busy machine while no
// reader was late. A thread born in the window counts from its start; one
// that ended in it is not there to ask.
func clientCPU(a, b *cpuSample) *record.ClientCPU {
	if !a.ok || !b.ok {
		return nil
	}
	win := b.at.Sub(a.at)
	c := &record.ClientCPU{WindowMS: ms(win), Threads: len(b.threads)}
	var longest, exec, slices uint64
	i := 0
	for _, t := range b.threads {
		for i < len(a.threads) && a.threads[i].tid < t.tid {
			i++
		}
		var was threadStat
		if i < len(a.threads) && a.threads[i].tid == t.tid {
			was = a.threads[i]
		}
		longest = max(longest, sub(t.wait, was.wait))
		exec += sub(t.exec, was.exec)
		slices += sub(t.slices, was.slices)
	}
	c.MaxThreadWaitMS, c.OnCPUMS, c.Slices = float64(longest)/1e6, float64(exec)/1e6, int(slices)
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
func readPressure(root string) (uint64, bool) {
	b, err := os.ReadFile(filepath.Join(root, "pressure", "cpu"))
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
func readSteal(root string) (total, steal uint64, ok bool) {
	f, err := os.Open(filepath.Join(root, "stat"))
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
