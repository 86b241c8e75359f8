package probe

import (
	"os"
	"runtime/debug"
)

// GCPercent is the GC target while drip measures a run. Mark assists and
// GC work on the read path delay stamps: at 1,000 streams of 20 frames/s on
// 2 cores, GOGC 400 took the p99 stamp error from 3.8–10.4 ms to 2.6–4.6 ms
// (bench/load, docs/workloads.md) for a heap of about 5× the live one.
const GCPercent = 400

// gcFloorPerStream is the heap the GC counts per stream the plan can have
// in flight, before any is allocated: a little more than one stream's
// buffers and records take while it starts (about 33 KiB, bench/load).
const gcFloorPerStream = 32 << 10

// gcFloor is never read. It is pointer-free, so the GC counts it as live
// heap without scanning it, and its pages, never written, stay unmapped.
// Counted, it raises the heap the first collection waits for, so the
// burst of allocation when a run starts all its streams together does not
// set one off: its stop-the-world and mark assists delayed the first
// frames of every stream.
var gcFloor []byte

// TuneGC sets the process's GC for measuring p (GCPercent, and a floor of
// heap for the streams p can have in flight), unless the user set GOGC.
func TuneGC(p *Plan) {
	if os.Getenv("GOGC") != "" {
		return
	}
	debug.SetGCPercent(GCPercent)
	streams := max(p.Concurrency, 1)
	if p.Rate > 0 {
		streams = p.InflightLimit()
	}
	gcFloor = make([]byte, streams*gcFloorPerStream)
}
