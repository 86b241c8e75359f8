package hops

import (
	"fmt"
	"slices"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Owners of a stall at the client.
const (
	OwnerUpstream = "upstream" // the relay saw the gap, so the server (or what is before the relay) made it
	OwnerPath     = "path"     // the relay did not, so the path after it (a proxy, the network, the client) made it
	OwnerBoth     = "both"     // the relay saw stalls inside it, and the path added a stall's worth
	OwnerRelay    = "relay"    // the relay itself took the bytes late, though its kernel had them on time
)

// Kinds of silence at the client.
const (
	KindStall  = "stall"  // a gap between content frames at or over the stall threshold
	KindFreeze = "freeze" // a shorter silence between content reads, a freeze as docs/delivery.md has it
)

// Split is a time at the client, split at the relay. Upstream is the
// relay's own figure and Path the rest. Each is a duration on one host's
// clock, and no two hosts' clocks are compared. Both are null when either
// side has none. Relay, when set, is the relay's own lateness its record
// shows, taken out of Upstream (ttftSplit).
type Split struct {
	ClientMS   *float64 `json:"client_ms"`
	UpstreamMS *float64 `json:"upstream_ms"`
	RelayMS    *float64 `json:"relay_ms,omitempty"`
	PathMS     *float64 `json:"path_ms"`
}

// ttftSplit splits the client's TTFT at the relay r. Where the server
// reported when its first token was ready (Ollama's timings, Bedrock's
// first-byte latency), the relay's record has held_ms. That is the wait
// between then and the relay's read of the token, which on loopback is
// the relay's own lateness. Otherwise the relay's kernel says how late the
// relay read the first content (its witness). That share is the relay's,
// not the server's.
func ttftSplit(client *float64, r *record.Record) Split {
	s := split(client, r.TTFTMS)
	if s.UpstreamMS == nil {
		return s
	}
	late := r.HeldMS
	if late == nil || *late <= 0 {
		late = firstContentLag(r)
	}
	if late != nil && *late > 0 {
		s.RelayMS = late
		s.UpstreamMS = new(*r.TTFTMS - *late)
	}
	return s
}

// firstContentLag is how late r's reader took its first content frame's
// read, by its kernel. It is nil when the kernel did not stamp it.
func firstContentLag(r *record.Record) *float64 {
	w := r.Witness
	if w == nil {
		return nil
	}
	for i := range r.Frames {
		if f := &r.Frames[i]; f.IsContent() {
			if f.Read < 0 || f.Read >= len(w.Reads) || w.Reads[f.Read].NoStamp {
				return nil
			}
			return new(w.Reads[f.Read].LagMS)
		}
	}
	return nil
}

func split(client, relay *float64) Split {
	s := Split{ClientMS: client, UpstreamMS: relay}
	if client != nil && relay != nil {
		s.PathMS = new(*client - *relay)
	}
	return s
}

// Stall is a silence at the client (one of its record's stalls) with its
// owner. UpstreamMS is the stalls the relay saw among the frames the
// silence held back, from the frame before it to the last frame of the
// read that ended it. It is at most the silence. PathMS is the rest, the
// hold the path added. RelayMS is the relay's own lateness in it, by its
// kernel (the lag of the read that ended the silence at the relay). It is
// part of neither.
type Stall struct {
	Frame      int          `json:"frame"` // index in the client record's Frames of the frame that ended it
	AtMS       float64      `json:"at_ms"` // on the client's clock
	GapMS      float64      `json:"gap_ms"`
	Kind       string       `json:"kind"`
	Owner      string       `json:"owner"`
	UpstreamMS float64      `json:"upstream_ms"`
	PathMS     float64      `json:"path_ms"`
	RelayMS    float64      `json:"relay_ms,omitempty"`
	Upstream   []RelayStall `json:"upstream,omitempty"`
	mid        bool         // the client saw it mid-sentence
}

// RelayStall is a stall the relay saw inside a silence at the client.
type RelayStall struct {
	Frame int     `json:"frame"`  // the client record's frame whose text it came before
	GapMS float64 `json:"gap_ms"` // on the relay's clock
}

// Stream is one client stream beside its relay exchange.
type Stream struct {
	Seq       int    `json:"seq"`
	ID        string `json:"id,omitempty"`
	RelayFile string `json:"relay_file"`
	RelaySeq  int    `json:"relay_seq"`
	MatchedBy string `json:"matched_by"`
	// Aligned is how many of the client's Frames content frames are
	// aligned with the relay's. DiffersAt, when set, is the byte of
	// content where the two records part. The frames after it are not
	// aligned.
	Aligned   int   `json:"aligned_frames"`
	Frames    int   `json:"content_frames"`
	DiffersAt *int  `json:"content_differs_at,omitempty"`
	TTFT      Split `json:"ttft"`
	Headers   Split `json:"headers"`
	// Delay is the path's added delay per aligned frame (relative to the
	// least, ms).
	Delay  stats.Dist `json:"path_delay_ms"`
	Stalls []Stall    `json:"stalls"`
	// Bursts are reads at the client carrying stats.BurstFrames or more
	// content frames that the relay got in more than one read. The path
	// made those bursts.
	Bursts  int     `json:"path_bursts"`
	StallMS float64 `json:"stall_threshold_ms"`
	// Holding is, for a stream still running, who holds what has not
	// reached the client (the func Holding). It is empty once the stream
	// ended.
	Holding string `json:"holding,omitempty"`
	// PathHeld is what held the path's share of the stream (its stalls and
	// TTFT), as the relay's kernel saw its socket to the client. It is one
	// of the Held names, or empty when the path held nothing.
	PathHeld string    `json:"path_held,omitempty"`
	delays   []float64 // for the pool
}

// analyse puts one matched pair side by side.
func analyse(p pair) Stream {
	c, r := p.client, p.relay
	a := align(c, r)
	s := Stream{
		Seq: c.Seq, ID: c.StreamKey(), RelayFile: p.file, RelaySeq: r.Seq, MatchedBy: p.by,
		Aligned: len(a.at), Frames: len(a.c.idx), StallMS: c.StallMS,
		TTFT: ttftSplit(c.TTFTMS, r), Headers: split(c.HeadersMS, r.HeadersMS),
	}
	if a.same < len(a.c.text) {
		same := a.same
		s.DiffersAt = &same
	}
	s.delays = a.delays()
	s.Delay = stats.NewDist(append([]float64(nil), s.delays...))
	s.Stalls = stallsOf(c, &a)
	s.Bursts = pathBursts(&a)
	s.PathHeld = pathHeld(r.Exchange.Downstream, s.pathMS())
	return s
}

// What held the path's share of a stream, by the relay's kernel.
const (
	HeldLoss    = "loss"               // segments lost on the way, with retransmits beyond the spurious ones
	HeldReader  = "client-not-reading" // the client's window was full, so it or a proxy in front of it stopped reading
	HeldProxy   = "hold"               // nothing lost and the client read along, so a proxy held the bytes
	HeldUnknown = "no-kernel-figures"  // the relay's record has no downstream figures, so it is any of the three
)

// pathHeld names what held pathMS of a stream on the path, from the
// relay's account of its client socket. A nil d means that is not known.
func pathHeld(d *record.DownstreamTCP, pathMS float64) string {
	switch {
	case pathMS <= 0:
		return ""
	case d == nil:
		return HeldUnknown
	case d.RwndLimitedMS >= pathMS/2:
		// A client that stops reading makes its own kernel drop
		// segments once its buffer is full, so a full window comes first.
		return HeldReader
	case d.Retransmits > d.Spurious || d.Lost > 0:
		return HeldLoss
	}
	return HeldProxy
}

// pathMS is the path's share of the stream, its part of every silence and
// of the TTFT.
func (s *Stream) pathMS() float64 {
	ms := 0.0
	for _, st := range s.Stalls {
		ms += st.PathMS
	}
	if s.TTFT.PathMS != nil && *s.TTFT.PathMS >= s.StallMS {
		ms += *s.TTFT.PathMS
	}
	return ms
}

// stallsOf gives each silence at the client inside the aligned frames its
// owner. It covers every stall and every freeze under the stall threshold.
// A freeze is a silence between content reads of stats.FreezeMinMS and
// stats.FreezePaceRatio times the stream's mean spacing, as the delivery
// rule counts them.
func stallsOf(c *record.Record, a *alignment) []Stall {
	mid := map[int]bool{}
	for _, cs := range c.Stalls {
		mid[cs.Frame] = cs.MidSentence
	}
	n := len(a.c.t)
	if n < 2 {
		return []Stall{}
	}
	minFreeze := max(stats.FreezeMinMS, stats.FreezePaceRatio*(a.c.t[n-1]-a.c.t[0])/float64(n-1))
	out := []Stall{}
	for b := 1; b < len(a.at); b++ {
		gap := a.c.t[b] - a.c.t[b-1]
		if a.c.read[b] == a.c.read[b-1] || gap < min(minFreeze, c.StallMS) {
			continue
		}
		st := Stall{Frame: a.c.idx[b], AtMS: a.c.t[b-1], GapMS: gap, Kind: KindStall, mid: mid[a.c.idx[b]]}
		th := c.StallMS
		if gap < c.StallMS {
			st.Kind, th = KindFreeze, minFreeze
		}
		out = append(out, own(st, b, a, min(minFreeze, c.StallMS), th))
	}
	return out
}

// own splits the client's silence before content frame b between the
// upstream (the relay's gaps of at least seen inside it) and the path. The
// path owns it alone when the relay saw none, and shares it when its own
// share is th or more.
func own(st Stall, b int, a *alignment, seen, th float64) Stall {
	sum := 0.0
	last := a.at[a.lastOfRead(b)] // once, since the read may hold every frame
	k := a.clientFrameOfByte(a.r.end[a.at[b-1]])
	for j := a.at[b-1] + 1; j <= last; j++ {
		if g := a.r.t[j] - a.r.t[j-1]; g >= seen {
			sum += g
			// The relay's stalls come in the text's order. The client frame
			// holding each is found by walking on from the last one's.
			for k < len(a.at)-1 && a.c.end[k] <= a.r.end[j-1] {
				k++
			}
			st.Upstream = append(st.Upstream, RelayStall{Frame: a.c.idx[k], GapMS: g})
		}
	}
	st.UpstreamMS = min(sum, st.GapMS)
	st.RelayMS = min(a.r.lag[last], st.GapMS-st.UpstreamMS)
	st.PathMS = st.GapMS - st.UpstreamMS - st.RelayMS
	switch {
	case st.UpstreamMS == 0 && st.PathMS < th && st.RelayMS >= th:
		st.Owner = OwnerRelay
	case st.UpstreamMS == 0:
		st.Owner = OwnerPath
	case st.PathMS >= th:
		st.Owner = OwnerBoth
	default:
		st.Owner = OwnerUpstream
	}
	return st
}

// pathBursts counts the client's reads of stats.BurstFrames or more
// content frames whose frames the relay got in more than one read.
func pathBursts(a *alignment) int {
	n := 0
	for i := 0; i < len(a.at); {
		e := a.lastOfRead(i)
		if e-i+1 >= stats.BurstFrames && a.r.read[a.at[i]] != a.r.read[a.at[e]] {
			n++
		}
		i = e + 1
	}
	return n
}

// Label is how a stall reads on screen and in the text, such as
// "700ms upstream", "430ms path" or "1.47s: 1.00s upstream + 474ms path".
func (s Stall) Label(fmtMS func(float64) string) string {
	if s.Owner == OwnerBoth {
		return fmt.Sprintf("%s: %s upstream + %s path", fmtMS(s.GapMS), fmtMS(s.UpstreamMS), fmtMS(s.PathMS))
	}
	return fmtMS(s.GapMS) + " " + s.Owner
}

// Mark is where a view marks a stall in the client's text, with its length
// and its owner. The mark goes before the frame whose text came after the
// stall (an index in the client record's Frames).
type Mark struct {
	Frame int
	GapMS float64
	Owner string
	Mid   bool // the client's own stall, mid-sentence
}

// Marks are s's stalls as a view marks them in the text, in the text's
// order. A stall of one owner is marked where the client saw it. A stall
// of both is split. Each of the relay's stalls is marked where the
// upstream made it, and the path's share where the client's silence
// ended.
func (s *Stream) Marks() []Mark {
	var out []Mark
	for _, st := range s.Stalls {
		if st.Kind == KindFreeze {
			continue // the text marks stalls, and a freeze is in the panel
		}
		if st.Owner != OwnerBoth {
			out = append(out, Mark{st.Frame, st.GapMS, st.Owner, st.mid})
			continue
		}
		out = append(out, Mark{st.Frame, st.PathMS, OwnerPath, st.mid})
		for _, u := range st.Upstream {
			out = append(out, Mark{u.Frame, u.GapMS, OwnerUpstream, false})
		}
	}
	slices.SortStableFunc(out, func(a, b Mark) int { return a.Frame - b.Frame })
	return out
}

// StallAt is the stall of s that ended at the client record's frame i. It
// finds none when s is nil. Stalls are in frame order, so a view asking
// for each of a stream's stalls costs no more than sorting them.
func (s *Stream) StallAt(i int) (Stall, bool) {
	if s == nil {
		return Stall{}, false
	}
	j, ok := slices.BinarySearchFunc(s.Stalls, i, func(st Stall, i int) int { return st.Frame - i })
	if !ok {
		return Stall{}, false
	}
	return s.Stalls[j], true
}
