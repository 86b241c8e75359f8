package stats

import (
	"fmt"
	"iter"
	"slices"

	"github.com/driplab/drip/record"
)

// The reader's lateness, as the client's kernel sees it (record.Witness).
// It compares the software receive time of the newest segment each read
// took against the read's own stamp. On this machine an idle Go reader is
// 0.03–0.1 ms behind the kernel, and one beside two busy loops a few ms
// at p99. A reader held to 3% of a core by a CPU quota reached 98 ms.
const (
	// ReaderLateMS is the lag p99 at which a reader is late.
	ReaderLateMS = 20.0
	// ReaderMergeSharePct and ReaderMergeMin also make a reader late. It
	// is late when at least this share of its content reads, and
	// ReaderMergeMin of them, merged frames that arrived in separate
	// segments, and its lag reached ReaderLateMS at least once.
	ReaderMergeSharePct = 50.0
	ReaderMergeMin      = 3
	// LateStreamsPct is the share of a run's witnessed streams that must
	// have a late reader for the run's client to be late.
	LateStreamsPct = BurstSharePct
	// LossSilencePct is the share of a stream's silences, and at least
	// one, that must end with a read that took out-of-order segments or
	// followed the client's retransmits. The stream's silences are then
	// the network's. With 4% of the server's segments dropped on loopback,
	// every freeze of a 3-second stream was a retransmission timeout
	// (200–650 ms).
	LossSilencePct = 50.0
)

// LossRule states when a stream's silences were the network's.
var LossRule = fmt.Sprintf("≥ %g%% of the stream's silences (and one) ended with a read that took out-of-order segments (TCP_INFO rcv_ooopack) or followed the client's retransmits (total_retrans)", LossSilencePct)

// lossLed tells a stream whose silences the kernel saw lost segments make
// (LossRule).
func lossLed(w *record.Witness) bool {
	return w.Silences.Loss > 0 && pct(w.Silences.Loss, w.Silences.Count) >= LossSilencePct
}

// witnessDelivery lifts the stutter or bursts rule a stream met when its
// silences were lost segments' (LossRule). A retransmission timeout holds
// the stream, then hands over every segment that queued behind the hole in
// one read, which reads as a proxy's interval or its buffer. The lifted
// rule stays as the witness's excused_rule, and the stream keeps its ITL.
func witnessDelivery(r *record.Record) {
	w, d := r.Witness, r.Delivery
	if w == nil || d == nil || !lossLed(w) {
		return
	}
	if d.Class == record.DeliveryStutter || d.Rule == DeliveryBursts {
		w.ExcusedRule = d.Rule
		d.Class, d.Rule = record.DeliveryClean, ""
		d.PeriodMS, d.Freezes, d.FirstHeld = nil, nil, nil
	}
}

// readerKeptUp reports whether the kernel saw the stream's reader take
// each read on time (not Late). Then no wait of the client's explains its
// bursts, whatever the OS says of drip's threads.
func readerKeptUp(r *record.Record) bool {
	w := r.Witness
	return w != nil && w.Stamped && !w.Late
}

// ReaderLateRule states when a stream's reader was late.
var ReaderLateRule = fmt.Sprintf("the reader's lag (its read's stamp − the kernel's receive time of the newest segment read) p99 ≥ %g ms, or ≥ %g%% of its content reads (≥ %d) merging frames that arrived in separate segments with its lag max ≥ %g ms",
	ReaderLateMS, ReaderMergeSharePct, ReaderMergeMin, ReaderLateMS)

// deriveWitness fills the derived figures of r's witness from its reads
// and TCP samples and r's frames.
func deriveWitness(r *record.Record) {
	w := r.Witness
	if w == nil {
		return
	}
	w.LagP50MS, w.LagP99MS, w.LagMaxMS, w.SegmentsPerRead = nil, nil, nil, nil
	w.ReaderMerges, w.SocketMerges, w.OutOfOrder, w.Retransmits = 0, 0, 0, 0
	w.Silences, w.Late, w.ExcusedRule = record.Silences{}, false, ""
	if lags := readerLags(r); len(lags) > 0 {
		slices.Sort(lags)
		w.LagP50MS, w.LagP99MS, w.LagMaxMS = new(Percentile(lags, 50)), new(Percentile(lags, 99)), new(lags[len(lags)-1])
	}
	if n := len(w.TCP); n > 1 {
		w.OutOfOrder = w.TCP[n-1].OutOfOrder - w.TCP[0].OutOfOrder
		w.Retransmits = w.TCP[n-1].Retransmits - w.TCP[0].Retransmits
	}
	merges := pct(w.ReaderMerges, scanContentReads(r, w))
	w.Late = w.LagP99MS != nil && (*w.LagP99MS >= ReaderLateMS ||
		w.ReaderMerges >= ReaderMergeMin && merges >= ReaderMergeSharePct && *w.LagMaxMS >= ReaderLateMS)
}

// readerLags are the lags of r's witnessed reads in ms. There are none
// without the kernel's stamps.
func readerLags(r *record.Record) []float64 {
	w := r.Witness
	if w == nil || !w.Stamped {
		return nil
	}
	lags := make([]float64, 0, len(w.Reads))
	for i := range w.Reads {
		if !w.Reads[i].NoStamp {
			lags = append(lags, w.Reads[i].LagMS)
		}
	}
	return lags
}

// witnessedRead is one content read. It holds its time, its content
// frames and what the kernel saw of it.
type witnessedRead struct {
	t float64
	n int
	k record.WitnessRead
}

// contentReads yields r's content reads in order, each with its time, its
// content frames and what the kernel saw of it. It keeps no list, as a
// run sums these for every stream it measured.
func contentReads(r *record.Record, w *record.Witness) iter.Seq[witnessedRead] {
	return func(yield func(witnessedRead) bool) {
		var cur witnessedRead
		read := -1
		for i := range r.Frames {
			f := &r.Frames[i]
			if !f.IsContent() || f.Read >= len(w.Reads) {
				continue
			}
			if f.Read != read {
				if cur.n > 0 && !yield(cur) {
					return
				}
				cur, read = witnessedRead{t: f.TMS, k: w.Reads[f.Read]}, f.Read
			}
			cur.n++
		}
		if cur.n > 0 {
			yield(cur)
		}
	}
}

// scanContentReads counts w's merges and segments over r's content reads
// and classes the silences before them. It returns the content reads.
func scanContentReads(r *record.Record, w *record.Witness) int {
	reads, segs, asked, frames := 0, 0, 0, 0
	var first, last float64
	for rd := range contentReads(r, w) {
		if reads == 0 {
			first = rd.t
		}
		reads, last = reads+1, rd.t
		if !rd.k.NoSegs {
			segs += int(rd.k.Segs)
			asked++
		}
		frames += rd.n
		switch {
		case rd.n < 2:
		case apart(rd):
			w.ReaderMerges++
		default:
			w.SocketMerges++
		}
	}
	if reads == 0 {
		return 0
	}
	if asked > 0 {
		w.SegmentsPerRead = new(float64(segs) / float64(asked))
	}
	spacing := (last - first) / float64(max(frames-1, 1))
	prev := first
	for rd := range contentReads(r, w) {
		if gap := rd.t - prev; gap >= r.StallMS || gap >= FreezeMinMS && gap >= FreezePaceRatio*spacing {
			classSilence(&w.Silences, rd)
		}
		prev = rd.t
	}
	return reads
}

// classSilence counts a silence by the read that ended it. Loss comes
// first, because whatever the read carried, the wait was the network's.
// Then it goes by how the read's frames came.
func classSilence(s *record.Silences, end witnessedRead) {
	s.Count++
	switch {
	case end.k.OutOfOrder > 0 || end.k.Retransmits > 0:
		s.Loss++
	case end.n < 2:
		s.OneFrame++
	case apart(end):
		s.ReaderMerged++
	default:
		s.Merged++
	}
}

// apart tells a read whose content frames may each have come in a
// segment of its own, as it took at least as many segments as content
// frames. With fewer, at least two of its frames shared a segment, merged
// before the socket.
func apart(rd witnessedRead) bool { return int(rd.k.Segs) >= rd.n }

// WitnessSummary pools the client kernel's account over the measured
// streams (record.Witness). Counts are sums over the streams, the lag is
// the reader_lag_ms metric, and the round trip is a distribution over
// streams.
type WitnessSummary struct {
	Streams      int `json:"streams"` // with the kernel's witness
	Stamped      int `json:"stamped"` // of them, with receive stamps
	Reads        int `json:"reads"`
	Segments     int `json:"segments"` // data segments over the reads that asked (SegsReads)
	SegsReads    int `json:"segs_reads"`
	ReaderMerges int `json:"reader_merges"`
	SocketMerges int `json:"socket_merges"`
	OutOfOrder   int `json:"out_of_order"`
	Retransmits  int `json:"retransmits"`
	// Silences are the streams' silences by the read that ended each.
	Silences record.Silences `json:"silences"`
	// Late counts the streams whose reader was late (Rule), LossLed those
	// whose silences were lost segments' (LossRule).
	Late     int    `json:"late"`
	Rule     string `json:"rule"`
	LossLed  int    `json:"loss_led"`
	LossRule string `json:"loss_rule"`
	// MinRTT is each stream's least round trip (TCP_INFO min_rtt at its
	// end). It is the path's, whatever the server did.
	MinRTT Dist   `json:"min_rtt_ms"`
	Note   string `json:"note,omitempty"`
}

// witnessAgg gathers WitnessSummary.
type witnessAgg struct {
	s      WitnessSummary
	others int
	minRTT Sampler
}

func (a *witnessAgg) add(r *record.Record) {
	if r.Exchange != nil {
		return // a relay's exchange (drip record), which no reader of drip's read
	}
	w := r.Witness
	if w == nil {
		a.others++
		return
	}
	s := &a.s
	s.Streams++
	if w.Stamped {
		s.Stamped++
	}
	s.Reads += len(w.Reads)
	for i := range w.Reads {
		if !w.Reads[i].NoSegs {
			s.SegsReads++
			s.Segments += int(w.Reads[i].Segs)
		}
	}
	s.ReaderMerges += w.ReaderMerges
	s.SocketMerges += w.SocketMerges
	s.OutOfOrder += w.OutOfOrder
	s.Retransmits += w.Retransmits
	s.Silences.Add(w.Silences)
	if w.Late {
		s.Late++
	}
	if lossLed(w) {
		s.LossLed++
	}
	if n := len(w.TCP); n > 0 && w.TCP[n-1].MinRTTMS > 0 {
		a.minRTT.Add(w.TCP[n-1].MinRTTMS)
	}
}

// summary returns the run's WitnessSummary, or nil for no streams.
func (a *witnessAgg) summary() *WitnessSummary {
	if a.s.Streams+a.others == 0 {
		return nil
	}
	if a.s.Streams == 0 {
		return &WitnessSummary{Rule: ReaderLateRule, LossRule: LossRule, Note: "not available: the kernel gave no receive times or TCP figures (Linux only, over TCP), so a late reader cannot be told from a slow path"}
	}
	s := a.s
	s.Rule, s.LossRule, s.MinRTT = ReaderLateRule, LossRule, a.minRTT.Dist()
	return &s
}

// PoolWitness adds o to s (drip merge --summaries) and returns the sum,
// which is nil while both are nil. Counts add. The round trip's
// distribution is left out, because the summaries hold no histogram of it.
func PoolWitness(s, o *WitnessSummary) *WitnessSummary {
	if o == nil {
		return s
	}
	if s == nil {
		s = &WitnessSummary{Note: o.Note}
	}
	s.Streams += o.Streams
	s.Stamped += o.Stamped
	s.Reads += o.Reads
	s.Segments += o.Segments
	s.SegsReads += o.SegsReads
	s.ReaderMerges += o.ReaderMerges
	s.SocketMerges += o.SocketMerges
	s.OutOfOrder += o.OutOfOrder
	s.Retransmits += o.Retransmits
	s.Silences.Add(o.Silences)
	s.Late += o.Late
	s.LossLed += o.LossLed
	s.Rule, s.LossRule = o.Rule, o.LossRule
	if s.Streams > 0 {
		s.Note = ""
	}
	return s
}

// readerLagSamples are the reader_lag_ms metric's samples, the lag of
// every witnessed read.
func readerLagSamples(r *record.Record) []float64 { return readerLags(r) }
