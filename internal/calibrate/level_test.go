package calibrate

import (
	"slices"
	"testing"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"
)

func TestPairMeasuresStampGapAndTTFTErrors(t *testing.T) {
	t.Parallel()
	start := time.Unix(1000, 0)
	// The request reached the server 0.3 ms after drip started it; the
	// server flushed content at 10, 20 and 30 ms after that.
	begin := start.Add(300 * time.Microsecond)
	writes := []fixtures.Write{{Kind: fixtures.StepRole, At: begin.Add(time.Millisecond), Begin: begin}}
	for i, at := range []time.Duration{10, 20, 30} {
		writes = append(writes, fixtures.Write{Step: i + 1, Kind: fixtures.StepText, At: begin.Add(at * time.Millisecond), Begin: begin})
	}
	// drip read them 0.1, 0.5 and 0.2 ms after the flushes.
	rec := &record.Record{Start: start, Frames: []record.Frame{
		{TMS: 1.4, Kind: adapters.KindRole},
		{TMS: 10.4, Kind: adapters.KindContent},
		{TMS: 20.8, Kind: adapters.KindContent},
		{TMS: 30.5, Kind: adapters.KindContent},
	}}
	var l Level
	l.Pair(rec, writes)
	round := func(v []float64) []float64 {
		out := make([]float64, len(v))
		for i, x := range v {
			out[i] = float64(int64(x*1e6+0.5)) / 1e6
		}
		return out
	}
	if got, want := round(l.StampErr), []float64{0.1, 0.5, 0.2}; !slices.Equal(got, want) {
		t.Errorf("stamp errors %v ms, want %v", got, want)
	}
	if got, want := round(l.GapErr), []float64{0.4, 0.3}; !slices.Equal(got, want) {
		t.Errorf("gap errors %v ms, want %v", got, want)
	}
	// drip's TTFT 10.4 ms − the server's 10 ms: the trip and the stamp.
	if got, want := round(l.TTFTErr), []float64{0.4}; !slices.Equal(got, want) {
		t.Errorf("TTFT errors %v ms, want %v", got, want)
	}
	if l.Frames != 3 || l.Unpaired != 0 {
		t.Errorf("%d frames paired, %d unpaired; want 3 and 0", l.Frames, l.Unpaired)
	}
	l.Pair(rec, writes[:2])
	if l.Unpaired != 2 {
		t.Errorf("a stream with 3 content frames and 1 server write left %d unpaired, want 2", l.Unpaired)
	}
}
