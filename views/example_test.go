package views_test

import (
	"fmt"
	"strings"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/views"
)

// Draw a stream's gaps into a box of 36 × 6 cells. Every drawing is a pure
// function of its data and its box and is exactly that box, so a screen
// places panels side by side and joins them; the zero Styles draws plain
// text (NewStyles for a terminal's colours).
func ExampleGaps() {
	r := &record.Record{V: record.RecordVersion, HTTPStatus: 200, DurationMS: 1000}
	t := 150.0
	for i, gap := range []float64{30, 30, 30, 600, 30, 30, 30} {
		t += gap
		r.Frames = append(r.Frames, record.Frame{TMS: t, Read: i, Kind: record.KindContent, Text: " word"})
	}
	if err := stats.Derive(r, stats.DefaultStall); err != nil {
		panic(err)
	}
	panel := views.Gaps(r, 36, 6, &views.Styles{})
	for _, line := range strings.Split(panel, "\n") {
		fmt.Printf("|%s|\n", line)
	}
	// Output:
	// |  20–50 ms ███████████████████████ 5|
	// | 50–100 ms                          |
	// |100–200 ms                          |
	// |200–500 ms                          |
	// |500 ms–1 s █████ 1                  |
	// |                                    |
}
