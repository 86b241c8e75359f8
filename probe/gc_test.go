package probe

import (
	"runtime/debug"
	"testing"
)

// TuneGC sets drip's GC target and a heap floor sized to the streams a
// plan can have in flight, and leaves the GC alone when GOGC is set.
func TestTuneGC(t *testing.T) {
	prev := debug.SetGCPercent(100)
	defer debug.SetGCPercent(prev)
	defer func() { gcFloor = nil }()

	t.Setenv("GOGC", "")
	TuneGC(&Plan{Concurrency: 10})
	if got := debug.SetGCPercent(100); got != GCPercent || len(gcFloor) != 10*gcFloorPerStream {
		t.Errorf("closed loop of 10: GOGC %d, floor %d B", got, len(gcFloor))
	}
	TuneGC(&Plan{Rate: 5})
	if len(gcFloor) != DefaultMaxInflight*gcFloorPerStream {
		t.Errorf("open loop: floor %d B, want one per --max-inflight stream", len(gcFloor))
	}

	t.Setenv("GOGC", "150")
	debug.SetGCPercent(100)
	gcFloor = nil
	TuneGC(&Plan{Concurrency: 10})
	if got := debug.SetGCPercent(100); got != 100 || gcFloor != nil {
		t.Errorf("with GOGC set: GOGC %d, floor %d B", got, len(gcFloor))
	}
}
