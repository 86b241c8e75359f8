package recorder

import (
	"bytes"
	"encoding/json"
	"slices"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// removedSplitKey names, in exchange.removed, a response body not kept: it
// held a credential said across frames that could not be masked in it.
const removedSplitKey = "response (a credential split across frames)"

// maskFramesAndBody masks the frames' text for the request's credentials
// as the probe does, a key the upstream said across frames included (the
// body itself was masked where a key stands whole), and stars the same
// bytes in the kept body. The body is checked by decoding it again: one
// that does not decode to the masked frames is not kept, nor its reads.
func (e *exchange) maskFramesAndBody(body []byte, reads []record.Read) {
	if e.mask == nil {
		return
	}
	plain := make([]string, len(e.rec.Frames))
	for i, f := range e.rec.Frames {
		plain[i] = f.Text
	}
	if !probe.MaskText(e.rec.Frames, e.mask) {
		return
	}
	out, ok := starSplitKeys(body, plain, e.rec.Frames)
	if ok {
		var check record.Record
		o := &e.p.o
		probe.DecodeReads(adapters.Auto, e.x.ContentType, split(out, reads), times(reads), o.FrameLimit, o.MaxFrames, &check)
		ok = sameText(check.Frames, e.rec.Frames) // an error the first decode had, it has again
	}
	if !ok { // served back, it is headers and no body
		out, e.x.Reads = nil, nil
		e.x.Removed = append(e.x.Removed, removedSplitKey)
	}
	e.x.SetResponse(out)
}

// starSplitKeys stars in a copy of body what masking starred of each
// frame's text, finding the frames in order where the body holds the text
// byte for byte: as a JSON string (SSE and NDJSON events) or as it is (a
// raw stream). ok is false when a frame's text is not found so.
func starSplitKeys(body []byte, plain []string, masked []record.Frame) (out []byte, ok bool) {
	out, at := bytes.Clone(body), 0
	for i, text := range plain {
		if masked[i].Text == text {
			continue
		}
		start := -1 // of the text in out
		if q := jsonString(text); q != nil {
			if j := bytes.Index(out[at:], q); j >= 0 {
				start = at + j + 1 // past the quote
			}
		}
		if start < 0 {
			if j := bytes.Index(out[at:], []byte(text)); j >= 0 {
				start = at + j
			}
		}
		if start < 0 {
			return nil, false
		}
		for k := range len(text) {
			if masked[i].Text[k] == '*' {
				out[start+k] = '*'
			}
		}
		at = start + len(text)
	}
	return out, true
}

// jsonString is s as a JSON string when it needs no escape (its bytes
// then stand in the body one for one); else nil, which no body holds.
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

func sameText(a, b []record.Frame) bool {
	return slices.EqualFunc(a, b, func(x, y record.Frame) bool { return x.Text == y.Text })
}
