package recorder

import (
	"encoding/json"
	"testing"
	"unicode/utf8"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// A line drip record writes at the default bounds reads back: the reader's
// bound (record.MaxLine) is above the longest such a line can be, the
// response kept and its text again in the frames, a request body kept,
// each byte escaped at its longest, and a frame and a read at their
// longest for each of the most frames kept.
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
