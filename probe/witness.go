package probe

import (
	"crypto/tls"
	"math"
	"net"
	"slices"
	"time"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// KernelView is what a witnessed connection's kernel said at its latest
// read. StampNS is the software receive time of the newest segment that
// read took (CLOCK_REALTIME ns, 0 when it gave none). The counts are the
// socket's TCP_INFO figures, which only grow. They count data segments
// received, out-of-order segments received, retransmits and bytes
// received. The round
// trips are in µs. The kernel stamps nothing for a moment after the first
// socket of the machine asks (it turns stamping on from a work queue), so
// a connection's first reads may come without a stamp.
type KernelView struct {
	StampNS                     int64
	SegsIn, OutOfOrder, Retrans uint32
	RTTUS, MinRTTUS, RcvRTTUS   uint32
	BytesIn                     uint64
}

// LagMS is how late a read that returned at now took its data. It is now
// minus the kernel's receive time of the newest segment it took, to the
// µs. A finer figure would only lengthen every read in the record, as an
// idle reader's lag is tens of µs. False when the kernel gave no stamp
// with the read.
func (v KernelView) LagMS(now time.Time) (float64, bool) {
	us := lagUS(v.StampNS, now)
	if us == noLag {
		return 0, false
	}
	return float64(us) / 1000, true
}

// noLag is lagUS's answer for a read without a stamp.
const noLag = math.MaxUint32

// lagUS is now minus stampNS in whole µs, or noLag for no stamp (0).
func lagUS(stampNS int64, now time.Time) uint32 {
	if stampNS == 0 {
		return noLag
	}
	return uint32(min(max(0, now.UnixNano()-stampNS+500)/1000, noLag-1))
}

// KernelWitness is a connection whose reads the kernel witnesses
// (witness_linux.go). View is the latest read's stamp with the socket's
// TCP_INFO asked now (a system call). LatestStamp is the stamp alone,
// which costs nothing more than the read did.
type KernelWitness interface {
	View() KernelView
	LatestStamp() int64
}

// WitnessOf is the kernel witness under a connection a WitnessDial dialer
// gave, through TLS (net/http's httptrace.GotConnInfo.Conn is one). It is
// nil when the connection has none (another OS, an in-memory network).
func WitnessOf(c net.Conn) KernelWitness {
	if t, ok := c.(*tls.Conn); ok {
		c = t.NetConn()
	}
	w, _ := c.(KernelWitness)
	return w
}

// maxTCPSamples bounds a record's TCP samples. A slow stream ends a
// silence at nearly every read, and the samples past it say nothing new.
const maxTCPSamples = 100

// ReadWitness is the kernel's account of one connection's reads, for a
// reader that frames its bytes later. drip record's upstream side is one,
// as it forwards each read before it decodes any.
type ReadWitness struct {
	k       KernelWitness
	prev    KernelView // the view at the latest read that asked TCP_INFO
	unasked int        // reads since then that did not ask
}

// WitnessReads starts witnessing c's reads, from now. It returns nil when
// c has no witness (WitnessOf).
func WitnessReads(c net.Conn) *ReadWitness {
	k := WitnessOf(c)
	if k == nil {
		return nil
	}
	rw := newReadWitness(k)
	return &rw
}

func newReadWitness(k KernelWitness) ReadWitness {
	return ReadWitness{k: k, prev: k.View()}
}

// Read is the kernel's account of the read that returned bytes at now. It
// gives its lag behind the newest segment's receive time and the segments,
// out-of-order segments and retransmits since the previous read. Reads
// in between that took only their stamp (ReadStamp) are taken to have
// had a segment each.
func (w *ReadWitness) Read(now time.Time) record.WitnessRead {
	v := w.k.View()
	r := record.WitnessRead{
		Segs:        int32(max(int64(v.SegsIn)-int64(w.prev.SegsIn)-int64(w.unasked), 0)),
		OutOfOrder:  int32(v.OutOfOrder - w.prev.OutOfOrder),
		Retransmits: int32(v.Retrans - w.prev.Retrans),
	}
	stampLag(&r, v, now)
	w.prev, w.unasked = v, 0
	return r
}

// ReadStamp is Read without asking TCP_INFO. It gives the read's lag alone,
// for a read whose segments decide nothing (one content frame, ending no
// silence). Its segments go uncounted (NoSegs).
func (w *ReadWitness) ReadStamp(now time.Time) record.WitnessRead {
	return stampOnly(w.readLag(now))
}

// readLag is ReadStamp's lag (lagUS) alone.
func (w *ReadWitness) readLag(now time.Time) uint32 {
	w.unasked++
	return lagUS(w.k.LatestStamp(), now)
}

// stampOnly is the account of a read that did not ask TCP_INFO, whose lag
// is us (lagUS).
func stampOnly(us uint32) record.WitnessRead {
	if us == noLag {
		return record.WitnessRead{NoSegs: true, NoStamp: true}
	}
	return record.WitnessRead{NoSegs: true, LagMS: float64(us) / 1000}
}

func stampLag(r *record.WitnessRead, v KernelView, now time.Time) {
	if lag, ok := v.LagMS(now); ok {
		r.LagMS = lag
	} else {
		r.NoStamp = true
	}
}

// Sample is the socket's TCP figures now, placed at (a record.TCPAt
// place) tms from the stream's start.
func (w *ReadWitness) Sample(at string, tms float64) record.TCPSample {
	return tcpSample(at, tms, w.k.View())
}

// streamWitness fills one stream's record.Witness as it reads. The
// reads are gathered here and handed to the record at the end. At 1,000
// streams a stream's structures are out of the cache at each of its reads,
// so a read keeps only its lag, in 4 bytes. The few reads that asked
// TCP_INFO keep their whole account beside.
type streamWitness struct {
	rw       ReadWitness
	lags     []uint32    // each read's lag (lagUS), a placeholder for one that asked
	asked    []askedRead // the reads that asked TCP_INFO
	stallMS  float64
	contentN int     // content frames so far
	contentR int     // content reads so far
	first    float64 // the first content read's time
	last     float64 // the latest content read's time
	w        *record.Witness
}

// askedRead is the account of the read at index at, which asked TCP_INFO.
type askedRead struct {
	at int
	r  record.WitnessRead
}

// firstReads is the room a stream's witness makes for reads at its start.
// A stream of a few hundred frames then grows its list twice, not eight
// times.
const firstReads = 64

// newStreamWitness starts rec's witness from the connection the stream got,
// sampled at its headers (tms). It is nil without a witness.
func newStreamWitness(c net.Conn, rec *record.Record, tms, stallMS float64) *streamWitness {
	k := WitnessOf(c)
	if k == nil {
		return nil
	}
	ws := &streamWitness{rw: newReadWitness(k), w: &record.Witness{}, stallMS: stallMS,
		lags: make([]uint32, 0, firstReads)}
	ws.sample(record.TCPAtHeaders, tms, ws.rw.prev)
	rec.Witness = ws.w
	return ws
}

// read takes the kernel's account of one read with bytes, stamped now
// (tms from the start), which completed frames. It asks the socket's
// TCP_INFO only for a read whose segments tell something. Such a read
// holds one of several content frames or the first content, or ends a
// silence.
func (ws *streamWitness) read(now time.Time, tms float64, frames []record.Frame) {
	content := 0
	for i := range frames {
		if frames[i].IsContent() {
			content++
		}
	}
	first := content > 0 && ws.contentR == 0
	silence := content > 0 && !first && ws.silence(tms-ws.last)
	if content > 1 || first || silence {
		ws.asked = append(ws.asked, askedRead{len(ws.lags), ws.rw.Read(now)})
		ws.lags = append(ws.lags, noLag) // reads takes this one from asked
	} else {
		ws.lags = append(ws.lags, ws.rw.readLag(now))
	}
	if content == 0 {
		return
	}
	switch {
	case first:
		ws.first = tms
		ws.sample(record.TCPAtFirstContent, tms, ws.rw.prev)
	case silence:
		ws.sample(record.TCPAtSilence, tms, ws.rw.prev)
	}
	ws.contentR++
	ws.contentN += content
	ws.last = tms
}

// silence tells a wait before a content read that a report may name. The
// wait is a stall, or a freeze as far as it can be told before the stream ends (at
// least stats.FreezeMinMS and stats.FreezePaceRatio times the spacing so
// far).
func (ws *streamWitness) silence(gap float64) bool {
	if gap >= ws.stallMS {
		return true
	}
	spacing := (ws.last - ws.first) / float64(max(ws.contentN-1, 1))
	return gap >= stats.FreezeMinMS && gap >= stats.FreezePaceRatio*spacing
}

// end samples the socket at the stream's end, d after its start. A nil
// witness does nothing.
func (ws *streamWitness) end(d time.Duration) {
	if ws == nil {
		return
	}
	ws.w.Reads = ws.reads()
	ws.w.Stamped = slices.ContainsFunc(ws.w.Reads, func(r record.WitnessRead) bool { return !r.NoStamp })
	ws.sample(record.TCPAtEnd, ms(d), ws.rw.k.View())
}

// reads are the record's reads, each with its lag alone (NoSegs) but
// those that asked TCP_INFO. They are nil for no read.
func (ws *streamWitness) reads() []record.WitnessRead {
	if len(ws.lags) == 0 {
		return nil
	}
	reads := make([]record.WitnessRead, len(ws.lags))
	for i, us := range ws.lags {
		reads[i] = stampOnly(us)
	}
	for _, a := range ws.asked {
		reads[a.at] = a.r
	}
	return reads
}

func (ws *streamWitness) sample(at string, tms float64, v KernelView) {
	if len(ws.w.TCP) >= maxTCPSamples && at != record.TCPAtEnd {
		return
	}
	ws.w.TCP = append(ws.w.TCP, tcpSample(at, tms, v))
}

func tcpSample(at string, tms float64, v KernelView) record.TCPSample {
	return record.TCPSample{
		At: at, TMS: tms,
		RTTMS: float64(v.RTTUS) / 1000, MinRTTMS: float64(v.MinRTTUS) / 1000, RcvRTTMS: float64(v.RcvRTTUS) / 1000,
		OutOfOrder: int(v.OutOfOrder), Retransmits: int(v.Retrans), BytesReceived: int64(v.BytesIn),
	}
}
