package calibrate

import (
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// DecodeCost replays the calibrate stream through the probe's decode path
// many times and divides the CPU time by the frames. That is drip's cost
// per frame without the socket. Nil where the system does not say CPU time.
func DecodeCost(f *adapters.Format) (*time.Duration, error) {
	reads, at, err := fixtures.Render(f.Name, fixtures.Lookup(Scenario), Scenario)
	if err != nil {
		return nil, err
	}
	times := make([]float64, len(at))
	for i, d := range at {
		times[i] = float64(d) / float64(time.Millisecond)
	}
	const iterations = 200
	frames := 0
	rec := &record.Record{}
	cpu0 := processCPU()
	for range iterations {
		if _, err := probe.Replay(f, reads, times, stats.DefaultStall, rec); err != nil {
			return nil, err
		}
		frames += len(rec.Frames)
	}
	return perFrame(since(cpu0, processCPU()), frames), nil
}
