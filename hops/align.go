package hops

import (
	"math"
	"sort"
	"strings"

	"github.com/driplab/drip/record"
)

// side is one vantage point's content frames. It holds their times on its
// own clock, the read each came in, and where each one's text ends in the
// stream's content (cumulative bytes). A relay's times are when its kernel
// had the bytes, where it stamped them. The text ends align frames that a
// hop merged or split.
type side struct {
	idx  []int // index in the record's Frames
	t    []float64
	lag  []float64 // how late its reader took each frame's read, by its kernel, or 0 when not known
	read []int
	end  []int
	text string
}

func contentOf(r *record.Record, kernelTime bool) side {
	lag := func(int) float64 { return 0 }
	if kernelTime {
		lag = readLags(r)
	}
	n := len(r.Frames)
	s := side{idx: make([]int, 0, n), t: make([]float64, 0, n), lag: make([]float64, 0, n), read: make([]int, 0, n), end: make([]int, 0, n)}
	var b strings.Builder
	for i := range r.Frames {
		f := &r.Frames[i]
		if !f.IsContent() {
			continue
		}
		b.WriteString(f.Text)
		s.idx = append(s.idx, i)
		s.t = append(s.t, f.TMS-lag(f.Read))
		s.lag = append(s.lag, lag(f.Read))
		s.read = append(s.read, f.Read)
		s.end = append(s.end, b.Len())
	}
	s.text = b.String()
	return s
}

// alignment maps each aligned client content frame to the relay content
// frame that completed its last byte. The relay had all of the frame's
// text from then on.
type alignment struct {
	c, r side
	at   []int // the relay frame of each client frame, with len(at) frames aligned
	// same is the bytes of content both sides have alike, from the start.
	// It is less than the client's text when they differ.
	same int
}

// readLags gives how late r's reader took each read, by its kernel's
// receive stamps (record.Witness). It gives 0 for a read it did not
// stamp. Only the relay's side is taken back to when its kernel had the
// bytes. What the client's own reader was late by is the client's, part
// of the path.
func readLags(r *record.Record) func(read int) float64 {
	w := r.Witness
	if w == nil || !w.Stamped {
		return func(int) float64 { return 0 }
	}
	return func(i int) float64 {
		if i < 0 || i >= len(w.Reads) {
			return 0
		}
		return w.Reads[i].LagMS
	}
}

func align(client, relay *record.Record) alignment {
	a := alignment{c: contentOf(client, false), r: contentOf(relay, true)}
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
// of the content, which is where a relay's stall shows in the client's
// text. It searches by halves, for a client silence may hold every relay
// stall.
func (a *alignment) clientFrameOfByte(off int) int {
	ends := a.c.end[:len(a.at)]
	if i := sort.SearchInts(ends, off+1); i < len(ends) {
		return i
	}
	return len(a.at) - 1
}

// delays are the path's added delay per aligned client frame. Each is the
// frame's client time less its relay frame's relay time, less the least
// of those (the clocks' offset and the path's floor). So only what the
// path added over its best shows.
func (a *alignment) delays() []float64 {
	if len(a.at) == 0 {
		return nil
	}
	d := make([]float64, len(a.at))
	floor := math.Inf(1)
	for i, j := range a.at {
		d[i] = a.c.t[i] - (a.r.t[j] + a.r.lag[j]) // from the relay's read, since its lateness is not the path's
		floor = min(floor, d[i])
	}
	for i := range d {
		d[i] -= floor
	}
	return d
}

// lastOfRead is the last aligned client frame in frame i's read. The read
// that ended a silence brought frames i to lastOfRead(i) at once.
func (a *alignment) lastOfRead(i int) int {
	for i+1 < len(a.at) && a.c.read[i+1] == a.c.read[i] {
		i++
	}
	return i
}
