package hops

import (
	"cmp"
	"slices"

	"github.com/driplab/drip/stats"
)

// HopTTFT is one hop's share of TTFT over the client's streams, when
// relays in a chain each recorded them. The hops run from the server to
// the relay nearest it, from each relay to the next, and from the last to
// the client.
type HopTTFT struct {
	From string     `json:"from"` // "server" or a relay file
	To   string     `json:"to"`   // a relay file or "client"
	TTFT stats.Dist `json:"ttft_ms"`
}

// relayTTFT is the relay's own TTFT, the upstream's share and the relay's
// lateness together.
func (s *Stream) relayTTFT() *float64 {
	if s.TTFT.UpstreamMS == nil {
		return nil
	}
	if s.TTFT.RelayMS == nil {
		return s.TTFT.UpstreamMS
	}
	return new(*s.TTFT.UpstreamMS + *s.TTFT.RelayMS)
}

// byClientStream groups the report's streams by the client stream each
// puts beside a relay. There is one group per client stream and one
// Stream per relay in it.
func byClientStream(ss []Stream) [][]*Stream {
	type key struct {
		seq int
		id  string
	}
	at := map[key]int{}
	var out [][]*Stream
	for i := range ss {
		k := key{ss[i].Seq, ss[i].ID}
		j, ok := at[k]
		if !ok {
			j = len(out)
			at[k] = j
			out = append(out, nil)
		}
		out[j] = append(out[j], &ss[i])
	}
	return out
}

// nearest is each client stream once, beside the relay nearest the
// server (the least TTFT of its own). Pooling a stream once per relay
// would count each of its stalls once per relay.
func nearest(groups [][]*Stream) []Stream {
	out := make([]Stream, 0, len(groups))
	for _, g := range groups {
		best := g[0]
		for _, s := range g[1:] {
			if t, b := s.relayTTFT(), best.relayTTFT(); t != nil && (b == nil || *t < *b) {
				best = s
			}
		}
		out = append(out, *best)
	}
	return out
}

// chainOrder is the relay files from the server outward, ordered by the
// median of each relay's own TTFT over the streams.
func chainOrder(groups [][]*Stream) []string {
	ttfts := map[string][]float64{}
	for _, g := range groups {
		for _, s := range g {
			if t := s.relayTTFT(); t != nil {
				ttfts[s.RelayFile] = append(ttfts[s.RelayFile], *t)
			}
		}
	}
	order := make([]string, 0, len(ttfts))
	p50 := map[string]float64{}
	for f, v := range ttfts {
		order = append(order, f)
		p50[f] = *stats.NewDist(v).P50
	}
	slices.SortFunc(order, func(a, b string) int { return cmp.Or(cmp.Compare(p50[a], p50[b]), cmp.Compare(a, b)) })
	return order
}

// ttftHops splits TTFT hop by hop over the client streams every relay of
// the chain recorded. It is nil with fewer than two relays, since then the
// upstream and path shares are the hops.
func ttftHops(groups [][]*Stream) []HopTTFT {
	order := chainOrder(groups)
	if len(order) < 2 {
		return nil
	}
	shares := make([][]float64, len(order)+1)
	for _, g := range groups {
		at := map[string]float64{}
		var client *float64
		for _, s := range g {
			if t := s.relayTTFT(); t != nil && s.TTFT.ClientMS != nil {
				at[s.RelayFile], client = *t, s.TTFT.ClientMS
			}
		}
		if len(at) != len(order) {
			continue // a relay missed the stream, so its hops are not known
		}
		prev := 0.0
		for i, f := range order {
			shares[i] = append(shares[i], at[f]-prev)
			prev = at[f]
		}
		shares[len(order)] = append(shares[len(order)], *client-prev)
	}
	names := append(append([]string{"server"}, order...), "client")
	out := make([]HopTTFT, len(shares))
	for i := range shares {
		out[i] = HopTTFT{From: names[i], To: names[i+1], TTFT: stats.NewDist(shares[i])}
	}
	return out
}
