// Package recordmask masks a request's credentials in what a server says
// back, as a record holds it. It masks the frames' text in arrival order,
// so a key split across frames is masked too. It also masks the frames'
// server fields, the error message, Retry-After and the redirects'
// locations. The probe masks a stream as it reads it, and drip record's
// relay masks what it keeps.
package recordmask

import (
	"bytes"
	"encoding/json"
	"maps"

	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/record"
)

// FrameText masks a stream's frames' text in arrival order, a key split
// across frames included. It keeps two views of the text, each a
// redact.TextStream. The first is each channel's own text (the answer, the
// reasoning, the tool calls, the other frames' words by kind). A key said
// across answer frames with reasoning between them is then one key in the
// answer, as a reader reads it. The second is the content frames' text of
// every channel together. A key the reasoning begins and the answer (or a
// tool call) goes on with is then one key too. A byte either view masks is
// masked. A nil FrameText (no credential on the request) masks nothing.
type FrameText struct {
	m       *redact.Masker
	streams map[frameChannel]*redact.TextStream
	content *redact.TextStream // every content frame's text, whatever its channel
	// The content view remembers as much text as a channel's view does.
	// While its last that many bytes are all one channel's (run), the two
	// mask alike. So only the channel's view masks, and the content view is
	// Resumed from it when another channel speaks. A stream that stays in
	// one channel pays for one view. Resuming it when it skipped nothing is
	// harmless, because it then remembers what lead does already.
	lead *redact.TextStream // the channel of the content view's last text
	run  int                // how much content text lead has said in a row
}

type frameChannel struct {
	kind    record.Kind
	channel record.Channel
}

// NewFrameText starts masking a stream's frames for m's credentials. For
// a nil Masker it returns nil.
func NewFrameText(m *redact.Masker) *FrameText {
	if m == nil {
		return nil
	}
	return &FrameText{m: m, streams: map[frameChannel]*redact.TextStream{}, content: m.Stream()}
}

// Next masks f's text as the next piece of its channel's text and, for a
// content frame, of all channels' text. f is left as it is.
func (t *FrameText) Next(f *record.Frame) string {
	if t == nil || f.Text == "" { // an empty piece changes no stream
		return f.Text
	}
	c := frameChannel{f.Kind, f.Channel}
	s, ok := t.streams[c]
	if !ok {
		s = t.m.Stream()
		t.streams[c] = s
	}
	own := s.Next(f.Text)
	if !f.IsContent() {
		return own
	}
	if s == t.lead && t.run >= s.Remembers() { // both views remember only s's text
		return own
	}
	if t.lead != nil && t.run >= t.lead.Remembers() { // it may have skipped lead's text
		t.content.Resume(t.lead)
	}
	if s != t.lead {
		t.lead, t.run = s, 0
	}
	t.run += len(f.Text)
	return starredInEither(f.Text, own, t.content.Next(f.Text))
}

// starredInEither is text with the bytes starred that a or b, two
// maskings of it, starred. It is one of them when the other starred
// nothing.
func starredInEither(text, a, b string) string {
	switch {
	case b == text:
		return a
	case a == text:
		return b
	}
	out := []byte(a)
	for i := range len(b) {
		if b[i] == '*' {
			out[i] = '*'
		}
	}
	return string(out)
}

// Mask masks a frame's text in place, as the next piece of its channel's
// text, so a key split across frames is masked too. It masks each server
// field the frame carries whole. A nil t masks nothing.
func (t *FrameText) Mask(f *record.Frame) {
	if t == nil {
		return
	}
	f.Text = t.Next(f)
	var server map[string]json.RawMessage
	for k, raw := range f.Server {
		if masked := t.m.Bytes(raw); !bytes.Equal(masked, raw) {
			if server == nil {
				server = maps.Clone(f.Server) // the decoder's map stays as it was
			}
			server[k] = masked
		}
	}
	if server != nil {
		f.Server = server
	}
}

// Text masks frames' text in place as a live stream's is, a key split
// across frames too (FrameText). It reports whether it changed any.
func Text(frames []record.Frame, m *redact.Masker) bool {
	text, changed := NewFrameText(m), false
	for i := range frames {
		masked := text.Next(&frames[i])
		changed = changed || masked != frames[i].Text
		frames[i].Text = masked
	}
	return changed
}

// ServerWords masks what a record holds of the server's words besides
// its frames. That is the error message, Retry-After and the redirects'
// locations.
func ServerWords(rec *record.Record, m *redact.Masker) {
	if e := rec.Error; e != nil {
		e.Message, e.RetryAfter = m.String(e.Message), m.String(e.RetryAfter)
	}
	for i := range rec.Redirects {
		rec.Redirects[i].To = m.String(rec.Redirects[i].To)
	}
}
