package integration

import (
	"fmt"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// clientLateMS: drip's goroutines waiting this long for a core during a
// fast stream move its ITL past the test's 10 %.
const clientLateMS = 1.0

// lateEvidence is the evidence that a stream was read late for a cause off the
// path under test: the server, or the machine holding a thread.
type lateEvidence struct {
	offSchedule, bound float64 // ms the server wrote off its schedule at most; past bound it sent bursts
	waited             float64 // ms drip's goroutines waited for a core at most (Go's scheduler latency)
	piled              float64 // ms apart the writes that one read carried, at most
	firstMS, lastMS    float64 // ms from the first and the last content write to the read that carried it
	medianMS           float64 // the same, the stream's median
	holds              *holdWatch
}

func lateness(r *record.Record, s stats.Summary, ws []fixtures.Write, sc *fixtures.Scenario, h *holdWatch) lateEvidence {
	l := lateEvidence{piled: pileUp(r, ws), holds: h}
	l.offSchedule, l.bound = behindSchedule(ws, sc)
	if s.Client != nil && s.Client.SchedLatency.Max != nil {
		l.waited = *s.Client.SchedLatency.Max
	}
	if lag := readLags(r, ws); len(lag) > 0 {
		l.firstMS, l.lastMS = lag[0], lag[len(lag)-1]
		slices.Sort(lag)
		l.medianMS = lag[len(lag)/2]
	}
	return l
}

// explains says whether l accounts for r's ITL being more than 10% off
// the server's spacing want. ITL is off by that only when drip read the
// first or the last content frame 10% of the stream later after its
// write than the other: the server sent a burst of its own, or the
// reader was late. The reader's evidence: a read that carried writes
// made that far apart (it let them pile up), drip's goroutines waiting
// for a core, or the threads on the path waiting on a run queue, around
// the late read, for as long as it takes to bring ITL back within 10% (a
// thread the OS held while it ran, which Go's scheduler latency does
// not see).
func (l lateEvidence) explains(r *record.Record, want float64) bool {
	budget := 0.1 * want * float64(r.ContentFrames-1)
	held := l.holds.firstMS
	if l.lastMS > l.firstMS {
		held = l.holds.lastMS
	}
	off := math.Abs(l.lastMS - l.firstMS)
	return l.offSchedule > l.bound || l.waited >= clientLateMS || l.piled+want >= budget || (off > budget && off-held <= budget)
}

func (l lateEvidence) String() string {
	return fmt.Sprintf("the server wrote up to %.3g ms off its schedule (bound %.3g); drip read the first content frame %.3g ms after its write and the last %.3g (median %.3g), "+
		"let writes %.3g ms apart pile up in one read, its goroutines waited up to %.3g ms for a core; the path's threads waited %.3g ms on a run queue around the first read, %.3g around the last",
		l.offSchedule, l.bound, l.firstMS, l.lastMS, l.medianMS, l.piled, l.waited, l.holds.firstMS, l.holds.lastMS)
}

// readLags is, for each content frame of r, the ms from its write to the
// read that carried it: the server and drip share this process's
// monotonic clock. The i-th content frame is the i-th content write (each
// write of these scenarios carries one); nil when the counts differ.
func readLags(r *record.Record, ws []fixtures.Write) []float64 {
	at := contentWrites(ws)
	if len(at) != r.ContentFrames {
		return nil
	}
	var lag []float64
	for i := range r.Frames {
		if f := &r.Frames[i]; f.IsContent() {
			read := r.Start.Add(time.Duration(f.TMS * float64(time.Millisecond)))
			lag = append(lag, float64(read.Sub(at[len(lag)]))/float64(time.Millisecond))
		}
	}
	return lag
}

// pileUp is the longest span, in ms of the server's write times, of the
// content writes that arrived in one read of r: how long the reader let
// writes wait. The i-th content frame is the i-th content write; 0 when
// the counts differ.
func pileUp(r *record.Record, ws []fixtures.Write) float64 {
	at := contentWrites(ws)
	if len(at) != r.ContentFrames {
		return 0
	}
	longest, k, read := 0.0, 0, -1
	var first time.Time
	for i := range r.Frames {
		f := &r.Frames[i]
		if !f.IsContent() {
			continue
		}
		if f.Read != read {
			read, first = f.Read, at[k]
		}
		longest = max(longest, float64(at[k].Sub(first))/float64(time.Millisecond))
		k++
	}
	return longest
}

// contentWrites is when each content write of ws was made.
func contentWrites(ws []fixtures.Write) []time.Time {
	var at []time.Time
	for _, w := range ws {
		if w.Kind.IsContent() {
			at = append(at, w.At)
		}
	}
	return at
}

// contentSteps is how many content frames sc streams.
func contentSteps(sc *fixtures.Scenario) int {
	n := 0
	for _, st := range sc.Steps {
		if st.Kind.IsContent() {
			n++
		}
	}
	return n
}

// holdWatch measures how long the threads of pids waited on a run queue
// (runnable, not running: the machine ran something else) around the
// first and the last content read of a stream of n content frames: from
// the read before the first content frame to the one that carried it,
// and from the read of content frame n-2 to that of frame n. It reads
// Linux's schedstat from the reader's goroutine, after the read is
// stamped and a write or more before the read it times; 0 where /proc
// does not say.
type holdWatch struct {
	pids            []int
	n, seen         int // content frames expected and read so far
	from            map[string]int64
	firstMS, lastMS float64 // ms waited, all threads together
}

func watchHolds(pids []int, n int) *holdWatch {
	return &holdWatch{pids: pids, n: n, from: runQueueNS(pids)}
}

func (h *holdWatch) observe(e probe.Event) {
	if e.Type != probe.EventFrames {
		return
	}
	prev := h.seen
	for _, f := range e.Frames {
		if f.IsContent() {
			h.seen++
		}
	}
	switch {
	case h.seen == 0:
		h.from = runQueueNS(h.pids)
	case prev == 0:
		h.firstMS = waitedSince(h.from, h.pids)
	case prev < h.n-2 && h.seen >= h.n-2:
		h.from = runQueueNS(h.pids)
	case prev < h.n && h.seen >= h.n:
		h.lastMS = waitedSince(h.from, h.pids)
	}
}

func waitedSince(from map[string]int64, pids []int) float64 {
	var ns int64
	for task, v := range runQueueNS(pids) {
		ns += v - from[task]
	}
	return float64(ns) / float64(time.Millisecond)
}

// runQueueNS is each thread's time on a run queue so far, from the
// second field of /proc/PID/task/TID/schedstat.
func runQueueNS(pids []int) map[string]int64 {
	ns := map[string]int64{}
	for _, pid := range pids {
		paths, _ := filepath.Glob(fmt.Sprintf("/proc/%d/task/*/schedstat", pid))
		for _, p := range paths {
			b, err := os.ReadFile(p)
			f := strings.Fields(string(b))
			if err != nil || len(f) < 2 {
				continue
			}
			if v, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				ns[p] = v
			}
		}
	}
	return ns
}
