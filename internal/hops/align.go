package hops

import (
	"math"
	"sort"
	"strings"

	"github.com/driplab/drip/record"
)

// side is one vantage point's content frames: their times on its own
// clock, the read each came in, and where each one's text ends in the
// stream's content (cumulative bytes), which aligns frames that a hop
// merged or split.
type side struct {
	idx  []int // index in the record's Frames
	t    []float64
	read []int
	end  []int
	text string
}

func contentOf(r *record.Record) side {
	n := len(r.Frames)
	s := side{idx: make([]int, 0, n), t: make([]float64, 0, n), read: make([]int, 0, n), end: make([]int, 0, n)}
	var b strings.Builder
	for i := range r.Frames {
		f := &r.Frames[i]
		if !f.IsContent() {
			continue
		}
		b.WriteString(f.Text)
		s.idx = append(s.idx, i)
		s.t = append(s.t, f.TMS)
		s.read = append(s.read, f.Read)
		s.end = append(s.end, b.Len())
	}
	s.text = b.String()
	return s
}

// alignment maps each aligned client content frame to the relay content
// frame that completed its last byte: the relay had all of the frame's
// text from then on.
type alignment struct {
	c, r side
	at   []int // at[i]: the relay frame of client frame i; len(at) frames aligned
	// same is the bytes of content both sides have alike, from the start;
	// less than the client's text when they differ.
	same int
}

func align(client, relay *record.Record) alignment {
	a := alignment{c: contentOf(client), r: contentOf(relay)}
	a.same = commonPrefix(a.c.text, a.r.text)
	j := 0
	for _, end := range a.c.end {
		if end > a.same {
			break
		}
		for j < len(a.r.end)-1 && a.r.end[j] < end {
			j++
		}
		a.at = append(a.at, j)
	}
	return a
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}

// clientFrameOfByte is the aligned client content frame holding byte off
// of the content: where a relay's stall shows in the client's text. A
// binary search, for a client silence may hold every relay stall.
func (a *alignment) clientFrameOfByte(off int) int {
	ends := a.c.end[:len(a.at)]
	if i := sort.SearchInts(ends, off+1); i < len(ends) {
		return i
	}
	return len(a.at) - 1
}

// delays are the path's added delay per aligned client frame: its client
// time less its relay frame's relay time, less the least of those (the
// clocks' offset and the path's floor), so only what the path added over
// its best shows.
func (a *alignment) delays() []float64 {
	if len(a.at) == 0 {
		return nil
	}
	d := make([]float64, len(a.at))
	floor := math.Inf(1)
	for i, j := range a.at {
		d[i] = a.c.t[i] - a.r.t[j]
		floor = min(floor, d[i])
	}
	for i := range d {
		d[i] -= floor
	}
	return d
}

// lastOfRead is the last aligned client frame in frame i's read: the read
// that ended a silence brought frames i to lastOfRead(i) at once.
func (a *alignment) lastOfRead(i int) int {
	for i+1 < len(a.at) && a.c.read[i+1] == a.c.read[i] {
		i++
	}
	return i
}
