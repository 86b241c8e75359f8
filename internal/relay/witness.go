package relay

import (
	"net"
	"net/http"
	"net/http/httptrace"
	"time"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// upstreamWitness is the relay's own kernel account of its reads from the
// upstream, as drip run keeps one of the client's (record.Witness). The
// lag of each read is how late the relay itself took it, which drip hops
// takes out of the upstream's share.
type upstreamWitness struct {
	rw    *probe.ReadWitness
	reads []record.WitnessRead // one per read keep kept
	tcp   []record.TCPSample
}

// traceConn has req note the connection the transport gives it in *c.
func traceConn(req *http.Request, c *net.Conn) *http.Request {
	t := &httptrace.ClientTrace{GotConn: func(i httptrace.GotConnInfo) { *c = i.Conn }}
	return req.WithContext(httptrace.WithClientTrace(req.Context(), t))
}

// witnessUpstream starts witnessing the reads of conn from its headers,
// tms into the exchange. It returns nil when the kernel stamps nothing
// there (not Linux, a client not made by probe.NewClient) or the proxy's
// clock is not the wall clock the kernel stamps with.
func witnessUpstream(conn net.Conn, wallClock bool, tms float64) *upstreamWitness {
	if !wallClock || conn == nil {
		return nil
	}
	rw := probe.WitnessReads(conn)
	if rw == nil {
		return nil
	}
	return &upstreamWitness{rw: rw, tcp: []record.TCPSample{rw.Sample(record.TCPAtHeaders, tms)}}
}

// read takes the kernel's stamp of the read that returned at now, its lag
// alone. It comes before the bytes go on to the client, so it asks the
// kernel nothing more (no TCP_INFO). A nil witness gives nothing.
func (u *upstreamWitness) read(now time.Time) record.WitnessRead {
	if u == nil {
		return record.WitnessRead{}
	}
	return u.rw.ReadStamp(now)
}

// add keeps the account of a read keep added.
func (u *upstreamWitness) add(r record.WitnessRead) {
	if u != nil {
		u.reads = append(u.reads, r)
	}
}

// mergeLast keeps the account of a read keep merged into the last one.
// The merged read has the last one's time, so it has its lag too.
func (u *upstreamWitness) mergeLast(r record.WitnessRead) {
	if u == nil || len(u.reads) == 0 {
		return
	}
	last := &u.reads[len(u.reads)-1]
	r.Segs, r.OutOfOrder, r.Retransmits = r.Segs+last.Segs, r.OutOfOrder+last.OutOfOrder, r.Retransmits+last.Retransmits
	*last = r
}

// witness is the record's account, sampled once more at the end (tms).
// It is nil when the reads the record frames are not the ones kept here (a
// body decoded from gzip, say) or nothing was witnessed.
func (u *upstreamWitness) witness(tms float64, framed int) *record.Witness {
	if u == nil || framed != len(u.reads) {
		return nil
	}
	w := &record.Witness{Reads: u.reads, TCP: append(u.tcp, u.rw.Sample(record.TCPAtEnd, tms))}
	for _, r := range u.reads {
		w.Stamped = w.Stamped || !r.NoStamp
	}
	return w
}

// upstreamWitness is the record's account of the reads from the upstream,
// framed from reads. A compressed response has none, as its decoded reads
// are not the socket's.
func (e *exchange) upstreamWitness(reads []record.Read) *record.Witness {
	if e.rec.ContentEncoding != "" {
		return nil
	}
	return e.up.witness(e.rec.DurationMS, len(reads))
}
