package stats_test

import (
	"fmt"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// stream is a record of a stream whose first word arrived at ttft ms and
// the next two 25 ms apart, ended by the format's end marker; the
// response ended 10 ms later.
func stream(seq int, ttft float64) *record.Record {
	return &record.Record{V: record.RecordVersion, Seq: seq, HTTPStatus: 200, DurationMS: ttft + 60, Frames: []record.Frame{
		{TMS: ttft, Kind: record.KindContent, Text: "One"},
		{TMS: ttft + 25, Read: 1, Kind: record.KindContent, Text: " two"},
		{TMS: ttft + 50, Read: 2, Kind: record.KindContent, Text: " three."},
		{TMS: ttft + 50, Read: 2, Kind: record.KindEnd},
	}}
}

// Derive fills a record's figures from its frames' times; Aggregate pools
// records into a Summary; a gate (drip's --fail-if) judges the summary.
func ExampleAggregate() {
	agg := stats.NewAggregate(stats.DefaultStall)
	for i, ttft := range []float64{120, 180, 900} {
		r := stream(i, ttft)
		if err := stats.Derive(r, stats.DefaultStall); err != nil {
			panic(err)
		}
		fmt.Printf("stream %d: %s, ttft %v ms, %d content frames\n", r.Seq, r.Status, *r.TTFTMS, r.ContentFrames)
		agg.Add(r)
	}
	s := agg.Summary(stats.Workload{})
	ttft := stats.TTFT.Of(s.Metrics)
	fmt.Printf("ttft over %d streams: p50 %v ms, max %v ms\n", ttft.N, *ttft.P50, *ttft.Max)

	for _, expr := range []string{"ttft.p50 > 500ms", "ttft.max > 500ms"} {
		g, err := stats.ParseGate(expr)
		if err != nil {
			panic(err)
		}
		fmt.Println(g.Eval(&s).Message)
	}
	// Output:
	// stream 0: complete, ttft 120 ms, 3 content frames
	// stream 1: complete, ttft 180 ms, 3 content frames
	// stream 2: complete, ttft 900 ms, 3 content frames
	// ttft over 3 streams: p50 180 ms, max 900 ms
	// ttft.p50 = 180 ms: passed
	// ttft.max = 900 ms: TRIPPED
}
