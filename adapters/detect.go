package adapters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"net"
	"slices"
	"strings"
)

// Auto is the format of a request whose URL did not say which format it
// speaks. It sends the OpenAI chat body (the most widely accepted) and
// picks the decoder from the response, by Content-Type and first bytes
// (NewDetector). It is not registered, because --format names only real
// formats.
var Auto = &Format{
	Name: "auto",
	Body: openAIChatBody,
	Auth: bearerAuth("OPENAI_API_KEY"),
	NewDecoder: func(limit int) Decoder {
		return NewDetector("", limit)
	},
}

// hosts maps well-known API hosts (by suffix) and ports to the format they
// serve, for a base URL that has no path.
var hosts = []struct{ suffix, format string }{
	{"api.anthropic.com", "anthropic"},
	{"generativelanguage.googleapis.com", "gemini"},
	{".amazonaws.com", "bedrock-converse"}, // bedrock-runtime.REGION.amazonaws.com
	{":11434", "ollama-chat"},              // Ollama's default port
}

// ForHost returns the format a well-known host serves at its base URL, or
// nil. host is a URL's host, with its port if any.
func ForHost(host string) *Format {
	h := strings.ToLower(host)
	for _, e := range hosts {
		name := h
		if !strings.HasPrefix(e.suffix, ":") {
			if hn, _, err := net.SplitHostPort(h); err == nil {
				name = hn
			}
		}
		if strings.HasSuffix(name, e.suffix) {
			return Lookup(e.format)
		}
	}
	return nil
}

// sniffLimit bounds how much of a response the detector holds before it
// gives up recognising a dialect and falls back to a generic format.
const sniffLimit = 64 << 10

// Detector is a decoder that picks the real decoder from the response. The
// Content-Type says SSE, NDJSON or event stream, and the first event (or
// line, or message) says which dialect. It holds bytes only until the first
// event is complete, which no decoder could have dispatched earlier, so
// detection never delays a frame.
type Detector struct {
	contentType string
	limit       int
	buf         []byte
	format      *Format
	dec         Decoder
	// first is an excerpt of the body's first bytes, kept at detection
	// for NotStream's message. docs says the body may be one document
	// (a document content type), until a second line opens a JSON value.
	first     string
	docs      bool
	lineStart bool // the last read ended a line
}

// NewDetector returns a detector for a response with that Content-Type.
func NewDetector(contentType string, limit int) *Detector {
	mt, _, _ := strings.Cut(contentType, ";")
	return &Detector{contentType: strings.ToLower(strings.TrimSpace(mt)), limit: limit}
}

// Format returns the format chosen, or nil before the first bytes.
func (d *Detector) Format() *Format { return d.format }

// Feed decodes p, choosing the decoder first if it can. It detects on p
// where it lies and hands that slice on, so the first frames' text is
// copied once, by the decoder, as every later frame's is. Only bytes that
// must wait for more (a first event that straddles reads) are held.
func (d *Detector) Feed(dst []Frame, p []byte) ([]Frame, error) {
	if d.dec != nil {
		if d.docs {
			d.watch(p)
		}
		return d.dec.Feed(dst, p)
	}
	held := len(d.buf) > 0
	b := p
	if held {
		d.buf = append(d.buf, p...)
		b = d.buf
	}
	f := detect(d.contentType, b, len(b) >= sniffLimit)
	if f == nil {
		if !held {
			d.buf = append(d.buf, p...) // p is the reader's buffer, reused after Feed
		}
		return dst, nil
	}
	d.buf = nil
	return d.start(dst, f, b)
}

// Close decides with what arrived, if nothing decided yet, and ends.
func (d *Detector) Close(dst []Frame) ([]Frame, error) {
	if d.dec == nil {
		buf := d.buf
		d.buf = nil
		var err error
		if dst, err = d.start(dst, detect(d.contentType, buf, true), buf); err != nil {
			return dst, err
		}
	}
	return d.dec.Close(dst)
}

// start picks f's decoder and feeds it b, the bytes detection read.
func (d *Detector) start(dst []Frame, f *Format, b []byte) ([]Frame, error) {
	d.format, d.dec = f, f.NewDecoder(d.limit)
	d.first = excerpt(string(bytes.TrimLeft(b[:min(len(b), 4*excerptRunes)], " \t\r\n\xef\xbb\xbf")))
	d.docs = documentType(d.contentType) && slices.Contains(wholeFormats, f.Name)
	d.watch(b)
	return d.dec.Feed(dst, b)
}

// wholeFormats are the formats detection picks for a body that may be one
// document, with no stream's framing, or JSON lines (a non-streamed Ollama
// answer reads as its first line).
var wholeFormats = []string{"raw", "ndjson", "ollama-chat", "ollama-generate"}

// documentTypes are content types of a whole document, not a stream.
var documentTypes = []string{"text/html", "application/xhtml+xml", "text/xml", "application/xml", "application/json"}

func documentType(ct string) bool {
	return slices.Contains(documentTypes, ct) || strings.HasSuffix(ct, "+json") || strings.HasSuffix(ct, "+xml")
}

// watch looks for NDJSON's second line in p, a read of the body, a line
// after the first that opens a JSON value at its start. A pretty-printed
// document's inner lines are indented, and its closing brace opens
// nothing. It stops looking once found, so a stream pays for a read or two.
func (d *Detector) watch(p []byte) {
	for b := p; len(b) > 0; {
		if d.lineStart && (b[0] == '{' || b[0] == '[') {
			d.docs = false
			return
		}
		i := bytes.IndexByte(b, '\n')
		if i < 0 {
			d.lineStart = false
			return
		}
		b, d.lineStart = b[i+1:], true
	}
}

// NotStream says why a finished response is no stream, or "". It names a
// document content type (HTML, XML, JSON) whose body was no stream
// format's, or one JSON document where NDJSON would have a line per event. Under
// --format auto such a 2xx is an answer of another kind (a login page, a
// whole non-streamed answer), not a stream to time.
func (d *Detector) NotStream() string {
	if !d.docs {
		return ""
	}
	return fmt.Sprintf("not a stream: the response is %s and its body starts %q", d.contentType, d.first)
}

// NotStreamBody says why a 2xx body from which no frame was decoded is no
// stream, or "". It names a document content type, a body that opens a
// document (HTML or XML) or one JSON value where no NDJSON was promised.
// It holds whatever picked the decoder, because a URL path or --format names what the
// client asked for, not what the server sent. head is the body's start.
func NotStreamBody(contentType string, head []byte) string {
	mt, _, _ := strings.Cut(contentType, ";")
	mt = strings.ToLower(strings.TrimSpace(mt))
	t := bytes.TrimLeft(head, " \t\r\n\xef\xbb\xbf")
	if len(t) == 0 {
		return ""
	}
	if !documentType(mt) && t[0] != '<' && (t[0] != '{' && t[0] != '[' || ndjsonType(mt)) {
		return ""
	}
	if mt == "" {
		mt = "untyped"
	}
	return fmt.Sprintf("not a stream: the response is %s and its body starts %q", mt, excerpt(string(t[:min(len(t), 4*excerptRunes)])))
}

// ndjsonType reports the content types of JSON lines.
func ndjsonType(ct string) bool {
	return slices.Contains(ndjsonTypes, ct)
}

var ndjsonTypes = []string{"application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines"}

// Sniff is the format a response's first bytes look like, as auto would
// pick it, for a stream that fails to decode as the format it was asked
// for, to say which it is.
func Sniff(contentType string, b []byte) *Format {
	mt, _, _ := strings.Cut(contentType, ";")
	return detect(strings.ToLower(strings.TrimSpace(mt)), b, true)
}

// detect picks a format for a response's first bytes b. It returns nil to
// wait for more, unless final.
func detect(ct string, b []byte, final bool) *Format {
	switch ct {
	case "application/vnd.amazon.eventstream":
		return detectEventStream(b, final)
	case "text/event-stream":
		return detectSSE(b, final)
	case "application/x-ndjson", "application/ndjson", "application/jsonl", "application/x-jsonlines":
		return detectNDJSON(b, final)
	}
	// With no telling type, the first bytes decide.
	t := bytes.TrimLeft(b, " \t\r\n\xef\xbb\xbf")
	if len(t) == 0 {
		if !final {
			return nil
		}
		return Lookup("raw")
	}
	switch {
	case sseField(t, false):
		return detectSSE(b, final)
	case sseField(t, true) && !final:
		return nil // the start of a field name, so wait for the rest
	case t[0] == '{':
		return detectNDJSON(b, final)
	case b[0] == 0 && len(b) < esPreludeLen && !final:
		return nil // perhaps an event-stream prelude (messages under 16 MiB start with 0)
	case b[0] == 0 && len(b) >= esPreludeLen && crc32.ChecksumIEEE(b[:8]) == binary.BigEndian.Uint32(b[8:12]):
		return detectEventStream(b, final)
	}
	return Lookup("raw")
}

// sseField reports text that starts with an SSE field or comment, or with
// part of one's name when partial is set.
func sseField(t []byte, partial bool) bool {
	for _, p := range []string{"data:", "event:", "id:", "retry:", ":"} {
		if bytes.HasPrefix(t, []byte(p)) || (partial && bytes.HasPrefix([]byte(p), t)) {
			return true
		}
	}
	return false
}

// sseDialects recognise a stream by its first event. The first match wins.
var sseDialects = []struct {
	marks  []string
	format string
}{
	{[]string{"message_start", `"content_block_`}, "anthropic"},
	{[]string{"response.created", `"type":"response.`}, "openai-responses"},
	{[]string{`"text_completion"`}, "openai-completions"},
	{[]string{"chat.completion", `"delta":`}, "openai-chat"},
	{[]string{`"candidates"`}, "gemini"},
	{[]string{`"token":{`, `"token": {`}, "tgi"},
}

func detectSSE(b []byte, final bool) *Format {
	end := firstEventEnd(b)
	if end < 0 && !final {
		return nil
	}
	if end < 0 {
		end = len(b)
	}
	ev := b[:end]
	for _, d := range sseDialects {
		for _, m := range d.marks {
			if bytes.Contains(ev, []byte(m)) {
				return Lookup(d.format)
			}
		}
	}
	return Lookup("sse")
}

// firstEventEnd returns the end of the first SSE block that has data (a
// blank line after a data line), or -1.
func firstEventEnd(b []byte) int {
	seen := false // a data line in the current block
	for start := 0; start < len(b); {
		i := bytes.IndexAny(b[start:], "\r\n")
		if i < 0 {
			return -1
		}
		line, end := b[start:start+i], start+i+1
		if b[start+i] == '\r' && end < len(b) && b[end] == '\n' {
			end++
		}
		switch {
		case len(line) == 0 && seen:
			return end
		case bytes.HasPrefix(line, []byte("data")):
			seen = true
		}
		start = end
	}
	return -1
}

func detectNDJSON(b []byte, final bool) *Format {
	line := b
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		line = b[:i]
	} else if !final {
		return nil
	}
	if bytes.Contains(line, []byte(`"done"`)) && (bytes.Contains(line, []byte(`"message"`)) || bytes.Contains(line, []byte(`"response"`)) || bytes.Contains(line, []byte(`"model"`))) {
		if bytes.Contains(line, []byte(`"response"`)) {
			return Lookup("ollama-generate")
		}
		return Lookup("ollama-chat")
	}
	return Lookup("ndjson")
}

// detectEventStream tells converse from invoke by the first message's
// :event-type (invoke sends "chunk").
func detectEventStream(b []byte, final bool) *Format {
	if len(b) >= esPreludeLen {
		hl := int(binary.BigEndian.Uint32(b[4:8]))
		if hl <= esMaxHeadersLen && len(b) < esPreludeLen+hl && !final {
			return nil
		}
		if bytes.Contains(b[:min(len(b), esPreludeLen+hl)], []byte("\x07\x00\x05chunk")) {
			return Lookup("bedrock-invoke")
		}
		return Lookup("bedrock-converse")
	}
	if !final {
		return nil
	}
	return Lookup("bedrock-converse")
}
