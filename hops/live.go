package hops

import (
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Relayed is a relay's times for one stream, as drip record --hops-addr
// serves them while the stream runs. It holds when the upstream's headers
// and each read came (ms from the relay's request to the upstream) and the
// bytes each brought, as forwarded. It holds no byte of any body and no
// header value.
type Relayed struct {
	ID        string        `json:"id"`
	HeadersMS *float64      `json:"headers_ms"`
	Reads     []record.Read `json:"reads"`
	Done      bool          `json:"done"`
	// Cut says the relay kept no more of this stream's reads. Past its
	// bound on the reads it keeps for all streams, the rest went unkept.
	Cut bool `json:"cut,omitempty"`
}

// Live puts a client's record, finished or still running, beside a
// relay's times for the same stream. The relay's frames are the client's,
// each at the time of the relay read that completed its bytes. The frames'
// wire bytes are counted in order, because the relay forwards the same
// body. Frames past the relay's last read are left out. Live returns nil
// when no content frame is covered.
func Live(client *record.Record, rel Relayed) *Stream {
	relay := &record.Record{V: record.RecordVersion, RunID: "relay", Phase: record.PhaseMeasure, HeadersMS: rel.HeadersMS,
		Exchange: &record.Exchange{Header: map[string][]string{record.StreamHeader: {rel.ID}}}}
	read, end, off := 0, 0, 0
	if len(rel.Reads) > 0 {
		end = rel.Reads[0].N
	}
	for _, f := range client.Frames {
		off += f.Bytes
		for read < len(rel.Reads)-1 && end < off {
			read++
			end += rel.Reads[read].N
		}
		if read >= len(rel.Reads) || end < off {
			break
		}
		f.TMS, f.Read = rel.Reads[read].TMS, read
		relay.Frames = append(relay.Frames, f)
	}
	if n := len(relay.Frames); n > 0 {
		relay.DurationMS = relay.Frames[n-1].TMS
	}
	if stats.Derive(relay, client.StallMS) != nil || relay.TTFTMS == nil {
		return nil
	}
	s := analyse(pair{client: client, relay: relay, file: "relay", by: ByID})
	if s.Aligned == 0 {
		return nil
	}
	return &s
}

// Holding says who holds what a running stream's client has not got. It is
// the path when the relay has passed on bytes the client has no frame of,
// since a server writes in whole frames. Otherwise it is the upstream.
func Holding(client *record.Record, rel Relayed) string {
	passed, got := 0, 0
	for _, r := range rel.Reads {
		passed += r.N
	}
	for _, f := range client.Frames {
		got += f.Bytes
	}
	if passed > got {
		return OwnerPath
	}
	return OwnerUpstream
}
