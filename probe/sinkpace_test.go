package probe

import (
	"testing"
	"time"
)

func TestSinkPace(t *testing.T) {
	const us = time.Microsecond
	type step struct {
		work             time.Duration
		inFlight         int64
		queued, capacity int
		rest             time.Duration
	}
	for _, tc := range []struct {
		name  string
		steps []step
	}{
		{"rests three times a burst of work while streams run", []step{
			{400 * us, 5, 1, 100, 0}, {400 * us, 5, 1, 100, 0}, {400 * us, 5, 1, 100, 3600 * us},
			{100 * us, 5, 0, 100, 0}, // counting starts afresh
		}},
		{"no rest with no stream in flight", []step{
			{900 * us, 5, 1, 100, 0}, {900 * us, 0, 1, 100, 0}, {900 * us, 0, 1, 100, 0},
		}},
		{"no rest with the queue over 7/8 full", []step{
			{900 * us, 5, 71, 80, 0}, {900 * us, 5, 71, 80, 0},
			{900 * us, 5, 70, 80, 0}, {900 * us, 5, 70, 80, 5400 * us},
		}},
		{"one slow record rests two bursts' share at most", []step{
			{time.Second, 5, 0, 100, 6 * time.Millisecond},
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p sinkPace
			for i, s := range tc.steps {
				if got := p.after(s.work, s.inFlight, s.queued, s.capacity); got != s.rest {
					t.Errorf("step %d (%+v): rest %v, want %v", i, s, got, s.rest)
				}
			}
		})
	}
}
