package relay

import (
	"encoding/json"
	"slices"
	"testing"
	"unicode/utf8"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// A line drip record writes at the default bounds reads back: the reader's
// bound (record.MaxLine) is above the longest such a line can be, the
// response kept and its text again in the frames, a request body kept,
// each byte escaped at its longest, and a frame and a read at their
// longest for each of the most frames kept (keep holds one read more:
// TestKeepMergesTheReadsPastTheFrameBound).
func TestTheReaderHoldsTheLongestLineAtTheDefaultBounds(t *testing.T) {
	esc := 0 // the most bytes one byte of text takes in JSON
	for b := rune(0); b < utf8.RuneSelf; b++ {
		j, err := json.Marshal(string(b))
		if err != nil {
			t.Fatal(err)
		}
		esc = max(esc, len(j)-2)
	}
	n := probe.DefaultMaxBytes
	frame, err := json.Marshal(record.Frame{TMS: 1e12 - 0.001, Read: probe.DefaultMaxFrames, Bytes: n, Kind: record.KindContent,
		Channel: record.ChannelReasoning, Tokens: n, Usage: &n})
	if err != nil {
		t.Fatal(err)
	}
	read, err := json.Marshal(record.Read{TMS: 1e12 - 0.001, N: n})
	if err != nil {
		t.Fatal(err)
	}
	const rest = 64 << 10 // headers, figures, an error message
	longest := esc*(2*probe.DefaultMaxBytes+maxRequestBody) + probe.DefaultMaxFrames*(len(frame)+len(read)+2) + rest
	if longest > record.MaxLine {
		t.Errorf("a record line at the default bounds can take %d MiB (bytes escaped to %d); the reader refuses lines over %d MiB",
			longest>>20, esc, record.MaxLine>>20)
	}
}

// A stream in more reads than the frame bound (1-byte reads) keeps the
// reads up to the bound and the rest as one, at the time of the read that
// ended them, so the record line stays bounded.
func TestKeepMergesTheReadsPastTheFrameBound(t *testing.T) {
	e := testExchange(probe.DefaultMaxBytes, 3)
	var reads []record.Read
	for i := range 10 {
		reads = e.keep(reads, []byte{'x'}, float64(i), record.WitnessRead{})
	}
	want := []record.Read{{TMS: 0, N: 1}, {TMS: 1, N: 1}, {TMS: 2, N: 1}, {TMS: 9, N: 7}}
	if !slices.Equal(reads, want) || len(e.resp) != 10 || !e.mergedReads || e.merged != 3 {
		t.Errorf("10 1-byte reads at a 3-frame bound kept as %v, %d bytes, merged at %d; want %v, 10 bytes, merged at 3", reads, len(e.resp), e.merged, want)
	}
}
