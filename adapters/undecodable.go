package adapters

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// ErrUndecodable reports a stream that carried an event its format could
// not read: a client of that API would have failed on it, so the stream
// is not a clean one whatever arrived after it.
var ErrUndecodable = errors.New("undecodable event")

// badEvents is the evidence of undecodable events, kept by the framer (SSE,
// Lines, EventStream), which counts events; its classifier makes their
// frames with frame, and the framer's Close reports them.
type badEvents struct {
	events  int // events so far, the one being classified included
	n       int // undecodable ones
	first   int // the first one's index, from 1
	excerpt string
	json    bool // the first one is JSON, of a shape the format does not have
}

const excerptRunes = 40

// frame records an undecodable payload and returns its frame: meta, with
// the payload as its text so the record keeps what arrived. Empty data is
// not counted: the SDKs dispatch no event for it.
func (b *badEvents) frame(data []byte, n int) Frame {
	f := Frame{Kind: KindMeta, Bytes: n}
	if len(data) == 0 {
		return f
	}
	f.Text = string(data)
	if b.n++; b.n == 1 {
		b.first, b.excerpt, b.json = b.events, excerpt(f.Text), json.Valid(data)
	}
	return f
}

// err is the decode error Close reports, or nil.
func (b *badEvents) err() error {
	if b.n == 0 {
		return nil
	}
	more := ""
	if b.n > 1 {
		more = fmt.Sprintf(" (and %d more)", b.n-1)
	}
	what := "not JSON"
	if b.json {
		what = "JSON the format cannot read"
	}
	return fmt.Errorf("%w: event %d is %s: %s%s", ErrUndecodable, b.first, what, b.excerpt, more)
}

// excerpt is the start of s as valid UTF-8, marked when cut; screens
// sanitize it like every message.
func excerpt(s string) string {
	s = strings.ToValidUTF8(s, "\uFFFD")
	if utf8.RuneCountInString(s) <= excerptRunes {
		return s
	}
	i := 0
	for range excerptRunes {
		_, w := utf8.DecodeRuneInString(s[i:])
		i += w
	}
	return s[:i] + "…"
}
