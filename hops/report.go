package hops

import (
	"fmt"
	"strings"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Report is a client file beside its relays'. It holds each matched
// stream and the figures pooled over them.
type Report struct {
	Client    string   `json:"client"`
	Relays    []string `json:"relays"`
	Streams   []Stream `json:"streams"`
	Unmatched int      `json:"unmatched_streams"` // client streams no relay exchange matched
	// Ambiguous are the ids that more than one stream or exchange claims,
	// paired with none.
	Ambiguous []Ambiguous `json:"ambiguous_ids"`
	Pooled    Pooled      `json:"pooled"`
	Verdict   Verdict     `json:"verdict"`
}

// Pooled is the matched streams' figures together, each client stream
// once. When relays in a chain each recorded a stream, it is taken beside
// the relay nearest the server.
type Pooled struct {
	Streams      int        `json:"streams"`
	TTFTUpstream stats.Dist `json:"ttft_upstream_ms"`
	TTFTPath     stats.Dist `json:"ttft_path_ms"`
	Delay        stats.Dist `json:"path_delay_ms"` // over every aligned frame
	// Stalls counts the stalls by owner, and UpstreamMS and PathMS add up
	// each hop's share of them in milliseconds. Freezes are not among
	// them, only counted. RelayMS is the relay's own lateness in them, by
	// its kernel.
	Stalls     map[string]int `json:"stalls"`
	UpstreamMS float64        `json:"stall_upstream_ms"`
	PathMS     float64        `json:"stall_path_ms"`
	RelayMS    float64        `json:"stall_relay_ms,omitempty"`
	Freezes    int            `json:"freezes"`
	Bursts     int            `json:"path_bursts"`
	// PathHeld counts the streams whose path share something held, by
	// what held it (Stream.PathHeld).
	PathHeld map[string]int `json:"path_held"`
	// TTFTHops split TTFT hop by hop when two or more relays in a chain
	// recorded the streams.
	TTFTHops []HopTTFT `json:"ttft_hops,omitempty"`
}

// Verdict says in words which hop holds the stream, by a named rule, with
// the figures that decided it.
type Verdict struct {
	Rule     string `json:"rule"`
	Text     string `json:"text"`
	Evidence string `json:"evidence"`
}

// Verdict rules.
const (
	RulePathHolds     = "path-holds"      // the path owns a stall, or a stall's worth of TTFT at the median
	RuleUpstreamStall = "upstream-stalls" // every stall is the upstream's
	RuleClean         = "no-stalls"       // no stall at the client
)

// Analyse matches client's streams with the relays' exchanges and puts
// each pair side by side. It refuses with a *FileError a file that does
// not belong. Such a file is a relay file none of whose exchanges matches,
// a client file that is a relay's, or a client none of whose streams
// shares content with its match.
func Analyse(client File, relays []File) (*Report, error) {
	pairs, ambiguous, unmatched, err := match(client, relays)
	if err != nil {
		return nil, err
	}
	rep := &Report{Client: client.Name, Unmatched: unmatched, Ambiguous: ambiguous}
	if rep.Ambiguous == nil {
		rep.Ambiguous = []Ambiguous{}
	}
	for _, f := range relays {
		rep.Relays = append(rep.Relays, f.Name)
	}
	for _, p := range pairs {
		if s := analyse(p); s.Aligned > 0 {
			rep.Streams = append(rep.Streams, s)
		} else {
			rep.Unmatched++
		}
	}
	if len(rep.Streams) == 0 && len(ambiguous) > 0 {
		a := ambiguous[0]
		return nil, &FileError{a.RelayFile, fmt.Sprintf("no stream to pair: %s %s", stats.Count(len(ambiguous), "id"), a.says())}
	}
	if len(rep.Streams) == 0 {
		return nil, &FileError{client.Name, fmt.Sprintf("its streams match %s by id or body, yet none shares content with its match: not the same streams", relays[0].Name)}
	}
	groups := byClientStream(rep.Streams)
	rep.Pooled = pool(nearest(groups))
	rep.Pooled.TTFTHops = ttftHops(groups)
	rep.Verdict = verdict(rep.Pooled, rep.Streams[0].StallMS)
	return rep, nil
}

// For is the stream of the report that is the client's record r. It is
// nil when no relay exchange matched it.
func (r *Report) For(c *record.Record) *Stream {
	for i := range r.Streams {
		if s := &r.Streams[i]; s.Seq == c.Seq && s.ID == c.StreamKey() {
			return s
		}
	}
	return nil
}

// ByRecord is each of recs beside its relay's stream, for the view. It is
// nil without a report. The streams are indexed once, so a file of many
// streams costs no more than reading them.
func (r *Report) ByRecord(recs []*record.Record) map[*record.Record]*Stream {
	if r == nil {
		return nil
	}
	type key struct {
		seq int
		id  string
	}
	streams := make(map[key]*Stream, len(r.Streams))
	for i := range r.Streams {
		s := &r.Streams[i]
		if k := (key{s.Seq, s.ID}); streams[k] == nil {
			streams[k] = s // the first, as For finds it
		}
	}
	m := map[*record.Record]*Stream{}
	for _, c := range recs {
		if h := streams[key{c.Seq, c.StreamKey()}]; h != nil {
			m[c] = h
		}
	}
	return m
}

// says is what makes the id ambiguous, in words.
func (a Ambiguous) says() string {
	if a.ClientStreams > 1 {
		return fmt.Sprintf("%q is ambiguous: %d client streams claim it", a.ID, a.ClientStreams)
	}
	return fmt.Sprintf("%q is ambiguous: %d exchanges of %s claim it", a.ID, a.Exchanges, a.RelayFile)
}

func pool(ss []Stream) Pooled {
	p := Pooled{Streams: len(ss), Stalls: map[string]int{OwnerUpstream: 0, OwnerPath: 0, OwnerBoth: 0}, PathHeld: map[string]int{}}
	var up, path, delay []float64
	for _, s := range ss {
		if s.TTFT.PathMS != nil {
			up, path = append(up, *s.TTFT.UpstreamMS), append(path, *s.TTFT.PathMS)
		}
		delay = append(delay, s.delays...)
		for _, st := range s.Stalls {
			if st.Kind == KindFreeze { // a freeze is no stall, so it is counted apart from the verdict
				p.Freezes++
				continue
			}
			p.Stalls[st.Owner]++
			p.UpstreamMS += st.UpstreamMS
			p.PathMS += st.PathMS
			p.RelayMS += st.RelayMS
		}
		p.Bursts += s.Bursts
		if s.PathHeld != "" {
			p.PathHeld[s.PathHeld]++
		}
	}
	p.TTFTUpstream, p.TTFTPath, p.Delay = stats.NewDist(up), stats.NewDist(path), stats.NewDist(delay)
	return p
}

// verdict names the hop that holds the stream. It is the path when the
// path owns (or shares) a stall or adds a stall's worth to the median
// TTFT. Failing that it is the upstream when there are stalls, and
// otherwise neither.
func verdict(p Pooled, threshold float64) Verdict {
	pathStalls := p.Stalls[OwnerPath] + p.Stalls[OwnerBoth]
	ttftPath := 0.0
	if p.TTFTPath.P50 != nil {
		ttftPath = *p.TTFTPath.P50
	}
	delay := "path delay per frame: none aligned"
	if p.Delay.N > 0 {
		delay = fmt.Sprintf("path delay per frame p50 %s, p99 %s, max %s (n=%d)", textfmt.OptMS(p.Delay.P50), textfmt.OptMS(p.Delay.P99), textfmt.OptMS(p.Delay.Max), p.Delay.N)
	}
	ev := fmt.Sprintf("stalls: %d upstream, %d path, %d both (upstream %s, path %s); TTFT p50 upstream %s, path %s; %s; %s; stall threshold %s",
		p.Stalls[OwnerUpstream], p.Stalls[OwnerPath], p.Stalls[OwnerBoth], textfmt.MS(p.UpstreamMS), textfmt.MS(p.PathMS),
		textfmt.OptMS(p.TTFTUpstream.P50), textfmt.OptMS(p.TTFTPath.P50), stats.Count(p.Bursts, "burst")+" the path made", delay, textfmt.MS(threshold))
	switch {
	case pathStalls > 0 || ttftPath >= threshold:
		return Verdict{RulePathHolds, fmt.Sprintf("the path after the relay holds the stream: it added %s of stalls in %s and %s to TTFT at the median; %s",
			textfmt.MS(p.PathMS), stats.Count(pathStalls, "stall"), textfmt.MS(ttftPath), heldBy(p.PathHeld)), ev}
	case p.Stalls[OwnerUpstream] > 0:
		return Verdict{RuleUpstreamStall, fmt.Sprintf("the upstream makes the stalls: %s, %s, each seen at the relay; the path adds jitter only (p99 %s per frame)",
			stats.Count(p.Stalls[OwnerUpstream], "stall"), textfmt.MS(p.UpstreamMS), textfmt.OptMS(p.Delay.P99)) + relayLate(p), ev}
	}
	none := "no stall at the client"
	if p.Stalls[OwnerRelay] > 0 {
		none = "no stall the upstream or the path made"
	}
	return Verdict{RuleClean, fmt.Sprintf("%s; the path adds p99 %s per frame", none, textfmt.OptMS(p.Delay.P99)) + relayLate(p), ev}
}

// relayLate says how much of the silences was the relay's own lateness,
// when its kernel saw any. Those are stalls the upstream and the path did
// not make.
func relayLate(p Pooled) string {
	if p.Stalls[OwnerRelay] == 0 {
		return ""
	}
	return fmt.Sprintf("; %s the relay's own (%s: its kernel had the bytes, drip record read them late)", stats.Count(p.Stalls[OwnerRelay], "stall"), textfmt.MS(p.RelayMS))
}

// heldBy says what held the path, by the relay's kernel, stream by stream.
// Where the relay kept no kernel figures it names every possible owner.
func heldBy(held map[string]int) string {
	words := map[string]string{
		HeldLoss:    "segments lost on the way (retransmits)",
		HeldReader:  "a client that stopped reading (its window full)",
		HeldProxy:   "a proxy that held the bytes (nothing lost, the client read along)",
		HeldUnknown: "no kernel figures from the relay: a lost segment, a client that stopped reading or a proxy's hold",
	}
	var parts []string
	for _, k := range []string{HeldLoss, HeldReader, HeldProxy, HeldUnknown} {
		if n := held[k]; n > 0 {
			parts = append(parts, fmt.Sprintf("%s %s", stats.Count(n, "stream"), words[k]))
		}
	}
	if parts == nil {
		return "what held it is not known"
	}
	return "held by " + strings.Join(parts, "; ")
}
