package probe_test

import (
	"testing"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// The cost per frame of decoding a recorded stream's reads into a record
// (drip record's finish, drip replay's and view's decode): the long
// scenario's OpenAI stream, format picked by the detector.
func BenchmarkDecodeReads(b *testing.B) {
	reads, at, err := fixtures.Render("openai-chat", fixtures.Lookup("long"), "bench-model")
	if err != nil {
		b.Fatal(err)
	}
	times := make([]float64, len(at))
	for i, d := range at {
		times[i] = float64(d) / float64(time.Millisecond)
	}
	var rec record.Record
	if e := probe.DecodeReads(adapters.Auto, "text/event-stream", reads, times, 0, 0, &rec); e != nil || len(rec.Frames) == 0 {
		b.Fatalf("decode: %d frames, %v", len(rec.Frames), e)
	}
	frames := len(rec.Frames)
	b.ReportAllocs()
	runs := 0
	for b.Loop() {
		rec = record.Record{}
		probe.DecodeReads(adapters.Auto, "text/event-stream", reads, times, 0, 0, &rec)
		runs++
	}
	b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(runs*frames), "ns/frame")
}
