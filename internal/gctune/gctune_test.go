package gctune

import (
	"runtime/debug"
	"sync"
	"testing"
)

// reset puts the GC settings back as they were before the test.
func reset(t *testing.T) {
	prevGC := debug.SetGCPercent(100)
	prevLimit := debug.SetMemoryLimit(-1)
	t.Cleanup(func() {
		debug.SetGCPercent(prevGC)
		debug.SetMemoryLimit(prevLimit)
		floor = nil
	})
}

// ForStreams sets GOGC, a floor and a memory limit sized to the streams.
func TestForStreams(t *testing.T) {
	reset(t)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	s := ForStreams(10)
	wantLimit := int64(limitBase + 10*floorPerStream + 10*limitPerStream)
	if got := debug.SetGCPercent(GCPercent); got != GCPercent || len(floor) != 10*floorPerStream {
		t.Errorf("10 streams: GOGC %d, floor %d B; want %d, %d", got, len(floor), GCPercent, 10*floorPerStream)
	}
	if got := debug.SetMemoryLimit(-1); got != wantLimit || s.MemoryLimit != wantLimit {
		t.Errorf("10 streams: memory limit %d (reported %d), want %d", got, s.MemoryLimit, wantLimit)
	}
	if s.GCPercent != GCPercent || s.FloorBytes != 10*floorPerStream {
		t.Errorf("reported %+v", s)
	}
	if ForStreams(0); len(floor) != floorPerStream {
		t.Errorf("0 streams: floor %d B, want one stream's", len(floor))
	}
}

// What the user set in the environment is left alone.
func TestForStreamsKeepsTheUsersSettings(t *testing.T) {
	reset(t)
	t.Setenv("GOGC", "150")
	t.Setenv("GOMEMLIMIT", "1GiB")
	debug.SetMemoryLimit(1 << 30)
	s := ForStreams(10)
	if got := debug.SetGCPercent(100); got != 100 || floor != nil {
		t.Errorf("with GOGC set: GOGC %d, floor %d B", got, len(floor))
	}
	if got := debug.SetMemoryLimit(-1); got != 1<<30 {
		t.Errorf("with GOMEMLIMIT set: limit %d, want %d", got, 1<<30)
	}
	if s != (Settings{}) {
		t.Errorf("reported %+v, want nothing set", s)
	}
}

// Two commands in one process (drip's in-process command tests) tune the
// GC at once, and each gets settings that agree with themselves.
func TestForStreamsFromTwoGoroutines(t *testing.T) {
	reset(t)
	t.Setenv("GOGC", "")
	t.Setenv("GOMEMLIMIT", "")
	var wg sync.WaitGroup
	got := make([]Settings, 2)
	for i := range got {
		wg.Go(func() { got[i] = ForStreams(10 * (i + 1)) })
	}
	wg.Wait()
	for i, s := range got {
		streams := 10 * (i + 1)
		if s.FloorBytes != streams*floorPerStream || s.MemoryLimit != limit(streams, s.FloorBytes) {
			t.Errorf("%d streams: %+v, want a floor of %d B and a limit of %d", streams, s, streams*floorPerStream, limit(streams, streams*floorPerStream))
		}
	}
}
