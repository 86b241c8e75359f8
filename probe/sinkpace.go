package probe

import "time"

// A run's sink (records encoded, written and aggregated: about 95 µs for
// a 200-frame stream) runs on one goroutine. When many streams end
// together, as a closed loop's do when it started them together, it took
// a core for as long as they kept ending, while the streams still running
// read their last frames: at 1,000 streams on 2 cores the last 10 frames'
// stamp p99 was 7–20 ms against 1–3 in the middle (bench/load). So while
// streams are in flight the sink works in bursts and rests three times as
// long after each: a quarter of a core. With none in flight, or a queue
// over 7/8 full (the sink must not hold up the streams that hand it
// records), it runs flat out. At half full, 5,000 streams ending together
// had it flat out for 2 s while the last ones still read.
const (
	sinkBurst     = time.Millisecond // work between rests
	sinkRestRatio = 3                // rest this many times the burst
)

// sinkPace tells the sink when to rest.
type sinkPace struct {
	worked time.Duration // since the last rest
}

// after notes one record's work and returns how long to rest before the
// next: inFlight streams are still running, queued records of capacity
// wait.
func (p *sinkPace) after(work time.Duration, inFlight int64, queued, capacity int) time.Duration {
	if inFlight <= 0 || 8*queued > 7*capacity {
		p.worked = 0
		return 0
	}
	p.worked += work
	if p.worked < sinkBurst {
		return 0
	}
	rest := sinkRestRatio * min(p.worked, 2*sinkBurst) // one slow record rests no longer than two bursts' share
	p.worked = 0
	return rest
}
