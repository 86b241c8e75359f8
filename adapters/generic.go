package adapters

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
)

// Generic fallbacks, so drip still times a stream it has no adapter for:
// any SSE (each data event a content frame), NDJSON (each line), raw (each
// read). Without a dialect nothing tells content from bookkeeping, so every
// data frame counts as content and the record's tokens are approximate; the
// end is a clean EOF, since no end marker is known. The request body is the
// OpenAI chat body, the most widely accepted one; --body replaces it.

func init() {
	Register(&Format{
		Name:         "sse",
		Body:         openAIChatBody,
		Auth:         bearerAuth("OPENAI_API_KEY"),
		ContentTypes: []string{"text/event-stream"},
		NewDecoder:   func(limit int) Decoder { return NewGenericSSEDecoder(limit) },
		EndIsEOF:     true,
	})
	Register(&Format{
		Name:         "ndjson",
		Body:         openAIChatBody,
		Auth:         bearerAuth("OPENAI_API_KEY"),
		ContentTypes: []string{"application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"},
		NewDecoder:   func(limit int) Decoder { return NewGenericNDJSONDecoder(limit) },
		EndIsEOF:     true,
	})
	Register(&Format{
		Name:       "raw",
		Body:       openAIChatBody,
		Auth:       bearerAuth("OPENAI_API_KEY"),
		NewDecoder: func(int) Decoder { return &Raw{} },
		EndIsEOF:   true,
	})
}

// eofEnd wraps a decoder whose format ends at EOF: Close appends an end
// frame when the stream ended cleanly and ready says the end was reached.
type eofEnd struct {
	Decoder
	ready func() bool
}

func (d *eofEnd) Close(dst []Frame) ([]Frame, error) {
	dst, err := d.Decoder.Close(dst)
	if err == nil && d.ready() {
		dst = append(dst, Frame{Kind: KindEnd})
	}
	return dst, err
}

// NewGenericSSEDecoder decodes any SSE stream: comments are pings, `event:
// error` or a JSON payload with a truthy top-level "error" is an error,
// `[DONE]` ends the stream, and every other data event is content. A clean
// EOF without [DONE] is the end too.
func NewGenericSSEDecoder(limit int) Decoder {
	done := false
	s := &SSE{Limit: limit, Classify: func(dst []Frame, ev *Event) []Frame {
		f := Frame{Kind: KindContent, Bytes: ev.Bytes}
		switch {
		case ev.Keepalive:
			f.Kind = KindPing
		case bytes.HasPrefix(ev.Data, doneMarker):
			f.Kind, done = KindEnd, true
		case string(ev.Type) == "error" || hasTopLevelError(ev.Data):
			f.Kind, f.Text = KindError, ErrorMessage(ev.Data)
		default:
			f.Text = string(ev.Data)
		}
		return append(dst, f)
	}}
	return &eofEnd{Decoder: s, ready: func() bool { return !done }}
}

// hasTopLevelError reports a JSON object with a truthy "error" member.
func hasTopLevelError(data []byte) bool {
	if len(data) == 0 || data[0] != '{' || !bytes.Contains(data, []byte(`"error"`)) {
		return false
	}
	var v struct {
		Error json.RawMessage `json:"error"`
	}
	return json.Unmarshal(data, &v) == nil && v.Error != nil && isTruthy(v.Error)
}

// Lines is a push decoder for newline-delimited records (NDJSON). Each
// LF-terminated line that is not blank goes to Classify with its wire bytes;
// blank lines count toward the next record's bytes.
type Lines struct {
	Classify func(dst []Frame, line []byte, n int) []Frame
	Limit    int // longest line in bytes; 0 means DefaultFrameLimit

	buf  []byte // a line not yet ended
	skip int    // bytes of blank lines before the next record
	err  error
	bad  badEvents // lines Classify could not read
}

// Feed decodes p and appends the frames of every line it completes.
func (l *Lines) Feed(dst []Frame, p []byte) ([]Frame, error) {
	if l.err != nil {
		return dst, l.err
	}
	limit := l.Limit
	if limit <= 0 {
		limit = DefaultFrameLimit
	}
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			if len(l.buf)+len(p) > limit {
				l.err = fmt.Errorf("ndjson: %w (limit %d bytes)", ErrFrameTooLarge, limit)
				return dst, l.err
			}
			l.buf = append(l.buf, p...)
			return dst, nil
		}
		if len(l.buf)+i > limit {
			l.err = fmt.Errorf("ndjson: %w (limit %d bytes)", ErrFrameTooLarge, limit)
			return dst, l.err
		}
		line := p[:i]
		if len(l.buf) > 0 {
			l.buf = append(l.buf, line...)
			line = l.buf
		}
		p = p[i+1:]
		dst = l.line(dst, line, len(line)+1)
		l.buf = l.buf[:0]
	}
	return dst, nil
}

func (l *Lines) line(dst []Frame, line []byte, n int) []Frame {
	if len(bytes.TrimSpace(line)) == 0 {
		l.skip += n
		return dst
	}
	n += l.skip
	l.skip = 0
	l.bad.events++
	return l.Classify(dst, bytes.TrimSuffix(line, []byte{'\r'}), n)
}

// Close ends the stream. A last line without its LF is dispatched when it
// is a complete JSON value (a server that omits the final newline), and
// reported as ErrTruncated otherwise. A line Classify could not read is
// reported (ErrUndecodable) before either.
func (l *Lines) Close(dst []Frame) ([]Frame, error) {
	if l.err != nil {
		return dst, l.err
	}
	if len(bytes.TrimSpace(l.buf)) > 0 {
		if !json.Valid(l.buf) {
			return dst, cmp.Or(l.bad.err(), ErrTruncated)
		}
		dst = l.line(dst, l.buf, len(l.buf))
		l.buf = l.buf[:0]
	}
	return dst, l.bad.err()
}

// NewGenericNDJSONDecoder decodes any NDJSON stream: a JSON object with a
// truthy top-level "error" is an error, every other line is content, and a
// clean EOF is the end.
func NewGenericNDJSONDecoder(limit int) Decoder {
	l := &Lines{Limit: limit, Classify: func(dst []Frame, line []byte, n int) []Frame {
		if hasTopLevelError(line) {
			return append(dst, Frame{Kind: KindError, Text: ErrorMessage(line), Bytes: n})
		}
		return append(dst, Frame{Kind: KindContent, Text: string(line), Bytes: n})
	}}
	return &eofEnd{Decoder: l, ready: func() bool { return true }}
}

// Raw makes every read one content frame: the only timing a stream of
// unknown framing allows. A clean EOF is the end.
type Raw struct{}

// Feed returns one content frame for p.
func (Raw) Feed(dst []Frame, p []byte) ([]Frame, error) {
	if len(p) == 0 {
		return dst, nil
	}
	return append(dst, Frame{Kind: KindContent, Text: string(p), Bytes: len(p)}), nil
}

// Close reports the end.
func (Raw) Close(dst []Frame) ([]Frame, error) { return append(dst, Frame{Kind: KindEnd}), nil }
