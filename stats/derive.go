package stats

import (
	"errors"
	"fmt"
	"math"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/driplab/drip/record"
)

// Thresholds of the definitions in docs/records.md.
const (
	DefaultStall = 250.0 // ms
	// A stream with fewer than bufferedMinFrames content frames has no
	// rate, so no ITL. It is buffered only when they carried many tokens
	// at once. Otherwise its reads decide (delivery.go).
	bufferedMinFrames = 3
)

// ErrBadTime reports a record whose times cannot be measurements.
var ErrBadTime = errors.New("bad timestamp")

// Derive fills every derived field of r from its raw times and frames.
// Those are the first event, TTFT, TTFO, e2e, tail, gaps and stalls,
// tokens, ITL, the delivery and buffered flag, the time held in transit
// and the status.
// stallMS is the stall threshold. It rejects NaN, infinite, negative or
// non-monotonic times.
func Derive(r *record.Record, stallMS float64) error {
	if err := checkTimes(r); err != nil {
		return err
	}
	resetDerived(r, stallMS)
	sc := frameScan{firstContent: -1, lastContent: -1, prevContent: -1, runRead: -1}
	for i := range r.Frames {
		sc.frame(r, i)
	}
	r.CoalescedFrames += coalesced(sc.runN)
	deriveStatus(r, &sc)
	deriveTokens(r, &sc)
	deriveWitness(r)
	if sc.lastContent < 0 {
		r.Buffered = false
		return nil
	}
	deriveTimes(r, r.Frames[sc.firstContent].TMS, r.Frames[sc.lastContent].TMS)
	splitTTFT(r, &r.Frames[sc.firstContent])
	return nil
}

// HeadersWithContentMS is how soon after the headers a first body read
// that carries content must return to count as sent with them. Its bytes
// were waiting when the headers were parsed, so the server sent the two
// together.
const HeadersWithContentMS = 1.0

// splitTTFT splits TTFT at the headers, where first is the first content
// frame. The path's part is their round trip and the server's part is the
// rest. A server that holds its headers until its first token (Ollama)
// sends them with it. Their time is then the server's wait and the path's
// together, so the split is left unknown rather than charging the path
// with the server's prefill.
func splitTTFT(r *record.Record, first *record.Frame) {
	r.TTFTPathUnknown = ""
	if r.HeadersMS == nil {
		return
	}
	if first.Read == 0 && r.FirstByteMS != nil && *r.FirstByteMS-*r.HeadersMS < HeadersWithContentMS {
		r.TTFTPathUnknown = record.PathHeadersWithContent
		r.TTFTPathRTTMS = kernelRTT(r.Witness)
		return
	}
	path := min(*r.HeadersMS, first.TMS)
	r.TTFTPathMS, r.TTFTServerMS = new(path), new(first.TMS-path)
}

// kernelRTT is the client kernel's smoothed round trip at the headers,
// which no server's wait is in. It is nil without the witness's sample
// there.
func kernelRTT(w *record.Witness) *float64 {
	if w == nil {
		return nil
	}
	for _, s := range w.TCP {
		if s.At == record.TCPAtHeaders && s.RTTMS > 0 {
			return new(s.RTTMS)
		}
	}
	return nil
}

// Rederive derives a record read back from a file again, from its raw
// frames with its own stall threshold (DefaultStall for one written
// without it), so every reader of a file gets the same figures. It fits
// record.ReadAll, as in record.ReadAll(f, stats.Rederive).
func Rederive(r *record.Record) error {
	stall := r.StallMS
	if stall <= 0 {
		stall = DefaultStall
	}
	return Derive(r, stall)
}

// resetDerived clears what Derive fills, so a record read back derives
// to the same figures.
func resetDerived(r *record.Record, stallMS float64) {
	r.StallMS = stallMS
	r.InputTokens = nil
	if v, ok := r.Server["input_tokens"].(float64); ok && v >= 0 && v < 1<<31 {
		r.InputTokens = new(int(v))
	}
	r.FirstEventMS, r.TTFTMS, r.TTFOMS, r.E2EMS, r.TailMS = nil, nil, nil, nil, nil
	r.ITLMS, r.TPSUser, r.TokensPerFrame = nil, nil, nil
	r.Delivery, r.HeldMS = nil, nil
	r.TTFTPathMS, r.TTFTServerMS, r.TTFTPathRTTMS = nil, nil, nil
	if c := r.ClientCPU; c != nil {
		c.Starved, c.ExcusedRule = clientStarved(c), ""
	}
	r.Stalls = nil
	r.ContentFrames, r.CoalescedFrames, r.Reads = 0, 0, 0
}

// frameScan is what one pass over a record's frames found.
type frameScan struct {
	firstContent, lastContent int // indexes in Frames, or -1 for none
	prevContent               int
	sawEnd                    bool
	inStream                  *record.Frame
	usage, rejected           *int // the last token report, the last one out of range
	tail                      sentenceTail
	runRead, runN             int // the read of the last content frame, and its content frames so far
}

// frame takes frame i into the scan and the record's counts.
func (sc *frameScan) frame(r *record.Record, i int) {
	f := &r.Frames[i]
	if i == 0 {
		r.FirstEventMS = new(f.TMS)
	}
	if f.Read+1 > r.Reads {
		r.Reads = f.Read + 1
	}
	if f.Usage != nil {
		if validTokens(*f.Usage) {
			sc.usage = f.Usage
		} else {
			sc.rejected = f.Usage
		}
	}
	switch f.Kind {
	case record.KindEnd:
		sc.sawEnd = true
	case record.KindError:
		if sc.inStream == nil {
			sc.inStream = f
		}
	case record.KindContent:
		sc.content(r, i)
	}
}

// content takes content frame i into TTFT, TTFO, coalescing, and the
// stall its gap makes.
func (sc *frameScan) content(r *record.Record, i int) {
	f := &r.Frames[i]
	r.ContentFrames++
	if f.Read != sc.runRead {
		r.CoalescedFrames += coalesced(sc.runN)
		sc.runRead, sc.runN = f.Read, 0
	}
	sc.runN++
	if sc.firstContent < 0 {
		sc.firstContent = i
		r.TTFTMS = new(f.TMS)
	}
	if r.TTFOMS == nil && f.IsAnswer() {
		r.TTFOMS = new(f.TMS)
	}
	if sc.prevContent >= 0 {
		gap := f.TMS - r.Frames[sc.prevContent].TMS
		if gap >= r.StallMS {
			r.Stalls = append(r.Stalls, record.Stall{
				Frame:       i,
				AtMS:        r.Frames[sc.prevContent].TMS,
				GapMS:       gap,
				MidSentence: !endsSentence(string(sc.tail)),
			})
		}
	}
	sc.tail.add(f.Text)
	sc.prevContent, sc.lastContent = i, i
}

// deriveStatus sets r's status. A failure recorded by the probe wins,
// then an in-stream error event. A clean end needs the format's end
// marker.
func deriveStatus(r *record.Record, sc *frameScan) {
	if r.Error == nil && sc.inStream != nil {
		r.Error = &record.Error{Class: record.ErrInStream, Message: sc.inStream.Text}
	}
	if r.Error == nil && sc.sawEnd && r.ContentFrames == 0 {
		r.Error = &record.Error{Class: record.ErrNoContent, Message: "the stream ended without content"}
	}
	switch {
	case r.Error != nil && r.Error.Class == record.ErrCanceled:
		r.Status = record.StatusCanceled
	case r.Error != nil && r.Error.Class == record.ErrLimit:
		r.Status = record.StatusIncomplete // cut by drip's bound, not by the server
	case r.Error != nil:
		r.Status = record.StatusFailed
	case sc.sawEnd:
		r.Status = record.StatusComplete
	default:
		r.Status = record.StatusIncomplete
	}
	r.Complete = r.Status == record.StatusComplete
}

// deriveTokens takes the server's last valid usage report, else one token
// per content frame.
func deriveTokens(r *record.Record, sc *frameScan) {
	r.TokensRejected = ""
	if sc.rejected != nil {
		r.TokensRejected = rejectedTokens(*sc.rejected)
	}
	if sc.usage != nil {
		r.OutputTokens, r.TokensSource = *sc.usage, "usage"
	} else {
		r.OutputTokens, r.TokensSource = r.ContentFrames, "approx"
	}
	if r.ContentFrames > 0 {
		r.TokensPerFrame = new(float64(r.OutputTokens) / float64(r.ContentFrames))
	}
}

// deriveTimes fills the delivery, buffered flag, held time and, for a
// complete stream, e2e, tail, ITL and tps from the first and last content.
func deriveTimes(r *record.Record, first, last float64) {
	// A stream that failed or was canceled has no delivery class. What
	// came before the end is no account of how an answer is delivered,
	// and a body that was no stream (not_stream) had no delivery at all.
	if r.Status != record.StatusFailed && r.Status != record.StatusCanceled {
		r.Delivery = readDelivery(r.Frames, r.ContentFrames, r.OutputTokens, last-first)
		excuseStarved(r, last-first)
		witnessDelivery(r)
		r.Buffered = r.Delivery.Class == record.DeliveryBuffered
	}
	if sft, ok := serverFirstTokenMS(r.Server); ok {
		r.HeldMS = new(first - sft)
	}
	if !r.Complete {
		return
	}
	r.E2EMS = new(last)
	r.TailMS = new(r.DurationMS - last)
	if !WithholdsITL(r.Delivery) && r.OutputTokens >= 2 && r.ContentFrames >= bufferedMinFrames {
		itl := (last - first) / float64(r.OutputTokens-1)
		r.ITLMS = new(itl)
		if itl > 0 {
			r.TPSUser = new(1000 / itl)
		}
	}
}

// WithholdsITL reports whether a stream's delivery leaves its ITL
// undefined. A buffered stream has none. Nor has a stutter stream whose
// first content was held, since its first content time is the proxy's,
// not the server's. A stutter stream whose first frame passed at once
// keeps its end-to-end ITL. Its bursts move frames between its first and
// last, not those two.
func WithholdsITL(d *record.Delivery) bool {
	return d != nil && (d.Class == record.DeliveryBuffered || d.FirstHeld != nil && *d.FirstHeld)
}

func checkTimes(r *record.Record) error {
	bad := func(what string, v float64) error {
		return fmt.Errorf("record %d: %s is %v: %w", r.Seq, what, v, ErrBadTime)
	}
	for _, p := range []struct {
		name string
		v    *float64
	}{{"headers_ms", r.HeadersMS}, {"first_byte_ms", r.FirstByteMS}, {"intended_start_ms", r.IntendedStartMS}, {"run_offset_ms", &r.RunOffsetMS}} {
		if p.v != nil && !finiteNonNeg(*p.v) {
			return bad(p.name, *p.v)
		}
	}
	if !finiteNonNeg(r.DurationMS) {
		return bad("duration_ms", r.DurationMS)
	}
	prev, prevRead := 0.0, 0
	for i, f := range r.Frames {
		if !finiteNonNeg(f.TMS) {
			return bad(fmt.Sprintf("frame %d t_ms", i), f.TMS)
		}
		if f.TMS < prev || f.Read < prevRead {
			return fmt.Errorf("record %d: frame %d at %vms (read %d) comes before frame %d at %vms (read %d): %w",
				r.Seq, i, f.TMS, f.Read, i-1, prev, prevRead, ErrBadTime)
		}
		prev, prevRead = f.TMS, f.Read
	}
	if len(r.Frames) > 0 && prev > r.DurationMS {
		return fmt.Errorf("record %d: frame at %vms after the stream ended at %vms: %w", r.Seq, prev, r.DurationMS, ErrBadTime)
	}
	return nil
}

// maxTimeMS bounds every time in a record (about 31 years), so that no sum
// or mean over records can overflow to Inf and break the JSON summary.
const maxTimeMS = 1e12

func finiteNonNeg(v float64) bool { return !math.IsNaN(v) && v >= 0 && v <= maxTimeMS }

// coalesced counts the content frames of one read that shared it, which
// is all n of them when there are several. Reads come in order
// (checkTimes), so a read's content frames are consecutive among the
// content frames.
func coalesced(n int) int {
	if n > 1 {
		return n
	}
	return 0
}

// sentenceTail is as much of the text so far as endsSentence looks at. It
// starts at the last rune that is neither space nor a closing mark, where
// every trim in endsSentence stops. While there is no such rune, it holds
// all of the text.
// A character split across frames (the raw format cuts text where reads
// end) waits in the tail for the frame that completes it.
type sentenceTail string

func (t *sentenceTail) add(s string) {
	if s != "" && !utf8.RuneStart(s[0]) {
		s, *t = string(*t)+s, "" // the last frame ended inside a character
	}
	whole := s[:len(s)-partialRune(s)]
	if i := strings.LastIndexFunc(whole, func(r rune) bool {
		return !unicode.IsSpace(r) && !strings.ContainsRune(closingMarks, r)
	}); i >= 0 {
		*t = sentenceTail(s[i:])
		return
	}
	*t += sentenceTail(s)
}

// partialRune is the length of the character s ends inside of, if any.
func partialRune(s string) int {
	for j := len(s) - 1; j >= 0 && j > len(s)-utf8.UTFMax; j-- {
		if utf8.RuneStart(s[j]) {
			if utf8.FullRuneInString(s[j:]) {
				return 0
			}
			return len(s) - j
		}
	}
	return 0
}

const closingMarks = `"')]}’”*_`

// endsSentence reports whether text, as read so far, ends a sentence or a
// line. A stall there is a pause between thoughts, not mid-sentence.
func endsSentence(text string) bool {
	if strings.HasSuffix(strings.TrimRight(text, " \t"), "\n") {
		return true
	}
	t := strings.TrimRightFunc(text, unicode.IsSpace)
	t = strings.TrimRight(t, closingMarks)
	if t == "" {
		return true // nothing read yet, so not inside a sentence
	}
	r, _ := utf8.DecodeLastRuneInString(t)
	return strings.ContainsRune(".!?:;…。！？", r)
}

// StopsMidSentence reports whether r's content so far stops inside a
// sentence. A stall in progress after it is then mid-sentence, by the
// rule Derive classifies the stall with once the next frame ends it.
func StopsMidSentence(r *record.Record) bool {
	var tail sentenceTail
	for i := range r.Frames {
		if r.Frames[i].Kind == record.KindContent {
			tail.add(r.Frames[i].Text)
		}
	}
	return !endsSentence(string(tail))
}
