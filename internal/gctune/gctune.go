// Package gctune sets the Go garbage collector for a process that measures
// streams. GC work on the read path delays stamps, so collections should be
// rare while the heap stays bounded.
package gctune

import (
	"os"
	"runtime/debug"
	"sync"
)

// GCPercent is the GC target while drip measures. Mark assists and GC work
// on the read path delay stamps. At 1,000 streams of 20 frames/s on 2
// cores, GOGC 400 took the p99 stamp error from 3.8–10.4 ms to 2.6–4.6 ms
// (bench/load, docs/performance.md) for a heap of about 5× the live one.
const GCPercent = 400

// floorPerStream is the heap the GC counts per stream in flight before any
// is allocated. At GOGC 400 the first collection comes after about 4× the
// floor is allocated, and a stream of 200 frames allocates about 78 KiB
// over its life, most of it in its record's frames grown by doubling. At
// 16 KiB, 1,000 such streams set off a collection 7.7 s into their 10 s,
// and the frames it delayed were 380 of the 3,573 stamped over 3 ms late
// (bench/load -streams 1000). At 32 KiB a run of them has none.
const floorPerStream = 32 << 10

// Past GOGC's goal, the memory limit bounds the heap. It is a base for the
// process and a budget per stream in flight. A stream holds about 15 KiB
// of heap and 24 KiB of goroutine stacks (its own and its connection's
// two), and its 200-frame record allocates about 28 KiB as it grows; the
// budget is that twice over, so the collector has room between cycles.
// At 64 KiB, 5,000 streams sat at the limit over the floor: the collector
// ran 11–13 times in their 10 s, and its mark assists on the read path
// took a quarter of drip's CPU (bench/load -streams 5000). Without a
// limit, GOGC 400 over a floor and the records a long run keeps grows the
// heap goal to gigabytes.
const (
	limitBase      = 128 << 20
	limitPerStream = 160 << 10
)

// floor is never read. It is pointer-free, so the GC counts it as live
// heap without scanning it, and its pages, never written, stay unmapped.
// Counted, it raises the heap the first collection waits for, so the burst
// of allocation when a run starts all its streams together does not set
// one off. Its stop-the-world and mark assists would delay the first
// frames of every stream. Commands run in parallel in one test process, so
// floorMu guards it.
var (
	floorMu sync.Mutex
	floor   []byte
)

// Settings is what ForStreams set. A zero field was left alone.
type Settings struct {
	GCPercent   int   // 0 when the user set GOGC
	FloorBytes  int   // heap counted live before any stream
	MemoryLimit int64 // 0 when the user set GOMEMLIMIT
}

// ForStreams tunes the GC for measuring up to streams streams at once. It
// sets GCPercent and a floor of heap unless the user set GOGC, and a memory
// limit that grows with the streams unless the user set GOMEMLIMIT.
func ForStreams(streams int) Settings {
	streams = max(streams, 1)
	floorMu.Lock()
	defer floorMu.Unlock()
	var s Settings
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
		floor = make([]byte, streams*floorPerStream)
		s.GCPercent, s.FloorBytes = GCPercent, len(floor)
	}
	if os.Getenv("GOMEMLIMIT") == "" {
		s.MemoryLimit = limit(streams, len(floor))
		debug.SetMemoryLimit(s.MemoryLimit)
	}
	return s
}

// ForForwarding tunes the GC for a process that forwards streams (drip
// record). It sets GCPercent unless the user set GOGC.
func ForForwarding() {
	if os.Getenv("GOGC") == "" {
		debug.SetGCPercent(GCPercent)
	}
}

// limit is the memory limit for streams in flight over a floor of
// floorBytes (the floor is heap in use, so it counts against the limit).
func limit(streams, floorBytes int) int64 {
	return limitBase + int64(floorBytes) + int64(streams)*limitPerStream
}
