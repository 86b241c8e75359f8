package probe

import (
	"testing"
	"testing/synctest"
	"time"
)

// The idle watch expires a timeout after the last read, not after the
// first: a read only stores its time, and the timer re-arms itself.
func TestIdleWatchCountsFromTheLastRead(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		var expired time.Duration
		start := time.Now()
		w := watchIdle(100*time.Millisecond, func() { expired = time.Since(start) })
		defer w.stop()
		time.Sleep(60 * time.Millisecond)
		w.touch()
		time.Sleep(90 * time.Millisecond)
		w.touch()
		time.Sleep(99 * time.Millisecond)
		synctest.Wait()
		if expired != 0 {
			t.Fatalf("expired at %v, 99 ms after a read", expired)
		}
		time.Sleep(time.Millisecond)
		synctest.Wait()
		if expired != 250*time.Millisecond {
			t.Errorf("expired at %v, want 250ms (100 ms after the read at 150 ms)", expired)
		}
	})
}

// A stopped watch never expires, even when its timer was already due.
func TestIdleWatchStopped(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		fired := false
		w := watchIdle(10*time.Millisecond, func() { fired = true })
		w.stop()
		time.Sleep(time.Second)
		synctest.Wait()
		if fired {
			t.Error("a stopped watch expired")
		}
	})
}
