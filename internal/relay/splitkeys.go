package relay

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"encoding/json"
	"hash"
	"io"
	"iter"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/recordmask"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// removedSplitKey names, in exchange.removed, a response body not kept. It
// held a credential said across frames that could not be masked in it.
const removedSplitKey = "response (a credential split across frames)"

// maskFramesAndBody masks the frames' text for the request's credentials
// as the probe does, including a key the upstream said across frames. (The
// body itself was masked where a key stands whole.) It stars the same
// bytes in the kept body.
//
// The body is what the client got (up to --max-bytes) and what fixtures
// serve --from sends back. Past --max-frames it still holds frames the
// record does not keep, and a key split across those must be starred
// there too. So the body's frames are walked again when masking changed a
// kept frame, or when the kept frames reached the bound or stop before the
// reads keep merged. The walk sees all of them but one at a time and keeps
// none, so what --max-frames bounds stays bounded.
// Starring, not dropping the body, keeps what serving it back needs. Some
// bodies are not kept, nor their reads, and exchange.removed says so. Such
// a body's starred copy does not decode to the masked frames, frame for
// frame (a piece the body escapes, Bedrock's binary events), or the body
// says the tokens again (logprobs).
func (e *exchange) maskFramesAndBody(body []byte, reads []record.Read) {
	if e.mask == nil {
		return
	}
	if !recordmask.Text(e.rec.Frames, e.mask) && len(e.rec.Frames) < e.p.o.MaxFrames && !e.mergedReads {
		return
	}
	out, masked, ok := e.starSplitKeys(body, reads)
	if ok && out == nil { // past the bound, no key split there either
		return
	}
	if !ok || carriesLogprobs(body) || !e.decodesTo(out, reads, masked) { // served back, it is headers and no body
		out, e.x.Reads = nil, nil
		e.x.Removed = append(e.x.Removed, removedSplitKey)
	}
	e.x.SetResponse(out)
}

// carriesLogprobs reports per-token log probabilities in body (OpenAI's
// "logprobs" set to {...} or [...], not null). They say each token again,
// as a string and as its UTF-8 bytes in numbers, where starring the frame's
// text does not reach.
func carriesLogprobs(body []byte) bool {
	const key = `"logprobs":`
	for rest := body; ; {
		i := bytes.Index(rest, []byte(key))
		if i < 0 {
			return false
		}
		rest = bytes.TrimLeft(rest[i+len(key):], " \t\r\n")
		if len(rest) > 0 && (rest[0] == '{' || rest[0] == '[') {
			return true
		}
	}
}

// starSplitKeys stars in a copy of body what masking stars of each of its
// frames' text, finding the frames in order where the body holds the text
// byte for byte. The text stands as a JSON string (SSE and NDJSON events)
// or as it is (a raw stream). out is nil when masking starred nothing. ok
// is false when a starred frame's text is not found so. masked sums body's
// frames with their text masked, which out must decode to.
func (e *exchange) starSplitKeys(body []byte, reads []record.Read) (out []byte, masked frameSum, ok bool) {
	text, at := recordmask.NewFrameText(e.mask), 0
	masked = newFrameSum()
	for f := range e.bodyFrames(body, reads) {
		want := text.Next(&f)
		masked.add(f.Kind, f.Channel, want)
		if want == f.Text {
			continue
		}
		if out == nil {
			out = bytes.Clone(body)
		}
		start := -1 // of the text in out
		if q := jsonString(f.Text); q != nil {
			if j := bytes.Index(out[at:], q); j >= 0 {
				start = at + j + 1 // past the quote
			}
		}
		if start < 0 {
			if j := bytes.Index(out[at:], []byte(f.Text)); j >= 0 {
				start = at + j
			}
		}
		if start < 0 {
			return nil, masked, false
		}
		for k := range len(want) {
			if want[k] == '*' {
				out[start+k] = '*'
			}
		}
		at = start + len(f.Text)
	}
	return out, masked, true
}

// decodesTo reports whether out, a body with keys starred, decodes to the
// frames masked sums (its frames with their text masked, frame for frame).
// Then the body served back says what the record does. If the body's
// decode met an error, out's meets it at the same frame.
func (e *exchange) decodesTo(out []byte, reads []record.Read, masked frameSum) bool {
	got := newFrameSum()
	for f := range e.bodyFrames(out, reads) {
		got.add(f.Kind, f.Channel, f.Text)
	}
	return got.equal(masked)
}

// frameSum is a SHA-256 of frames, each its kind, channel and text (its
// length first), in order. It compares two bodies' frames without keeping
// them (what --max-frames bounds stays bounded).
type frameSum struct{ h hash.Hash }

func newFrameSum() frameSum { return frameSum{sha256.New()} }

func (s frameSum) add(kind record.Kind, channel record.Channel, text string) {
	s.h.Write(binary.AppendUvarint([]byte{byte(kind), byte(channel)}, uint64(len(text))))
	io.WriteString(s.h, text)
}

func (s frameSum) equal(o frameSum) bool { return bytes.Equal(s.h.Sum(nil), o.h.Sum(nil)) }

// bodyFrames are the frames body decodes to as finish's decode finds them
// (adapters.Auto, the response's type), with no bound on their number and
// none kept. Each comes with what masking reads of it (kind, channel, text).
// They end where a decode error ends the record's.
func (e *exchange) bodyFrames(body []byte, reads []record.Read) iter.Seq[record.Frame] {
	return func(yield func(record.Frame) bool) {
		dec := adapters.NewDetector(e.x.ContentType, e.p.o.FrameLimit)
		for d := range probe.ReadFrames(dec, split(body, reads)) { // what Close ends with, the record has too
			for _, f := range d.Frames {
				rf := record.Frame{Kind: f.Kind, Text: f.Text}
				if f.Kind == adapters.KindContent {
					rf.Channel = f.Channel
				}
				if !yield(rf) {
					return
				}
			}
		}
	}
}

// jsonString is s as a JSON string when it needs no escape (its bytes
// then stand in the body one for one). Otherwise it is nil, which no body
// holds.
func jsonString(s string) []byte {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.Encode(s)
	if q := bytes.TrimSuffix(b.Bytes(), []byte("\n")); len(q) == len(s)+2 {
		return q
	}
	return nil
}
