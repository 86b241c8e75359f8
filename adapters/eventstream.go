package adapters

import (
	"encoding/binary"
	"errors"
	"fmt"
	"hash/crc32"
)

// The AWS binary event stream (FORMATS §6) is parsed in place. A message is a
// 12-byte prelude (total length, headers length, prelude CRC), headers, a
// payload and a message CRC. The parser accepts exactly what aws-sdk-go-v2's
// eventstream decoder accepts for a message whose prelude passed, and keeps
// only the string headers drip reads (FuzzEventStreamMessage holds it to
// that reference). It allocates nothing per message.

// Event-stream framing limits (aws-sdk-go-v2 eventstream message.go).
const (
	esPreludeLen    = 12 // total_len, headers_len, prelude CRC
	esMinMessageLen = 16
	esMaxHeadersLen = 128 << 10
	esMaxPayloadLen = 16 << 20
)

// ErrChecksum reports an event-stream message whose CRC does not match.
var ErrChecksum = errors.New("eventstream: checksum mismatch")

var errHeaders = errors.New("eventstream: headers end inside a header")

// EventMessage is one event-stream message as a classifier sees it. Its
// slices alias the decoder's input and are valid only during the call.
type EventMessage struct {
	// The string (or bytes) headers drip reads are nil when absent or of
	// another type. A repeated header's last value wins.
	EventType, MessageType, ExceptionType, ErrorCode, ErrorMessage []byte
	Payload                                                        []byte
}

// EventStream is a push decoder for the AWS binary event stream. It checks
// each prelude (lengths and CRC) as soon as its 12 bytes arrive, so a bad or
// oversized declared length fails at once and nothing is ever allocated
// from a declared length. A whole message is then checked against its CRC
// and parsed in place.
type EventStream struct {
	Classify func(dst []Frame, m *EventMessage, n int) []Frame
	Limit    int // largest message in bytes, DefaultFrameLimit when 0

	buf []byte
	msg EventMessage // handed to Classify, kept here so it does not escape
	err error
	bad badEvents // messages Classify could not read
}

// NewBedrockDecoder returns an event-stream decoder with a classifier.
func NewBedrockDecoder(limit int, classify func([]Frame, *EventMessage, int) []Frame) *EventStream {
	return &EventStream{Classify: classify, Limit: limit}
}

// Feed decodes p and appends the frames of every message it completes.
// Messages wholly inside p are parsed where they lie. Only a message that
// straddles reads is carried over in buf (one extra copy, only then).
func (d *EventStream) Feed(dst []Frame, p []byte) ([]Frame, error) {
	if d.err != nil {
		return dst, d.err
	}
	var err error
	if len(d.buf) > 0 {
		var whole bool
		if p, whole, err = d.complete(p); err != nil || !whole {
			d.err = err
			return dst, err
		}
		dst, _, err = d.messages(dst, d.buf)
		d.buf = d.buf[:0]
		if err != nil {
			d.err = err
			return dst, err
		}
	}
	if dst, p, err = d.messages(dst, p); err != nil {
		d.err = err
		return dst, err
	}
	d.buf = append(d.buf, p...) // the next read may reuse p's buffer
	return dst, nil
}

// complete moves bytes of p into buf until it holds the carried-over
// message whole, checking its prelude as soon as its 12 bytes are in.
func (d *EventStream) complete(p []byte) (rest []byte, whole bool, err error) {
	if n := esPreludeLen - len(d.buf); n > 0 {
		n = min(n, len(p))
		d.buf, p = append(d.buf, p[:n]...), p[n:]
		if len(d.buf) < esPreludeLen {
			return p, false, nil
		}
	}
	total, err := d.prelude(d.buf)
	if err != nil {
		return p, false, err
	}
	n := min(total-len(d.buf), len(p))
	d.buf, p = append(d.buf, p[:n]...), p[n:]
	return p, len(d.buf) == total, nil
}

// messages classifies the whole messages at the start of data and returns
// the bytes after them (an unfinished message).
func (d *EventStream) messages(dst []Frame, data []byte) ([]Frame, []byte, error) {
	for len(data) >= esPreludeLen {
		total, err := d.prelude(data)
		if err != nil {
			return dst, data, err
		}
		if len(data) < total {
			break
		}
		if err := d.msg.parse(data[:total]); err != nil {
			return dst, data, err
		}
		d.bad.events++
		dst = d.Classify(dst, &d.msg, total)
		data = data[total:]
	}
	return dst, data, nil
}

// prelude validates a message's prelude and returns its total length.
func (d *EventStream) prelude(b []byte) (int, error) {
	total := binary.BigEndian.Uint32(b[0:4])
	headers := binary.BigEndian.Uint32(b[4:8])
	if crc32.ChecksumIEEE(b[:8]) != binary.BigEndian.Uint32(b[8:12]) {
		return 0, fmt.Errorf("%w in a message prelude", ErrChecksum)
	}
	limit := d.Limit
	if limit <= 0 {
		limit = DefaultFrameLimit
	}
	switch {
	case total < esMinMessageLen || headers > total-esMinMessageLen:
		return 0, fmt.Errorf("eventstream: bad lengths (total %d, headers %d)", total, headers)
	case headers > esMaxHeadersLen || total-headers-esMinMessageLen > esMaxPayloadLen || int64(total) > int64(limit):
		return 0, fmt.Errorf("eventstream: %w: message of %d bytes (limit %d)", ErrFrameTooLarge, total, limit)
	}
	return int(total), nil
}

// Close ends the stream. Bytes of an unfinished message make it truncated.
// A message Classify could not read is reported first (ErrUndecodable).
func (d *EventStream) Close(dst []Frame) ([]Frame, error) {
	if d.err != nil {
		return dst, d.err
	}
	if err := d.bad.err(); err != nil {
		return dst, err
	}
	if len(d.buf) > 0 {
		return dst, ErrTruncated
	}
	return dst, nil
}

// parse reads a whole message whose prelude has been validated.
func (m *EventMessage) parse(b []byte) error {
	end := len(b) - 4
	if crc32.ChecksumIEEE(b[:end]) != binary.BigEndian.Uint32(b[end:]) {
		return fmt.Errorf("%w in a message", ErrChecksum)
	}
	headers := esPreludeLen + int(binary.BigEndian.Uint32(b[4:8]))
	*m = EventMessage{Payload: b[headers:end]}
	return m.parseHeaders(b[esPreludeLen:headers])
}

// parseHeaders reads a headers block as aws-sdk-go-v2's decodeHeaders
// does, quirk included. A name length as the block's last byte ends the
// headers (its read of the name meets EOF) rather than failing.
func (m *EventMessage) parseHeaders(h []byte) error {
	for len(h) > 0 {
		n := int(h[0])
		h = h[1:]
		if len(h) == 0 && n > 0 {
			return nil
		}
		if len(h) < n+1 {
			return errHeaders
		}
		name, typ := h[:n], h[n]
		h = h[n+1:]
		size, str, err := headerValueSize(typ, h)
		if err != nil {
			return err
		}
		var v []byte
		if str {
			v = h[2:size]
		}
		m.setHeader(name, v)
		h = h[size:]
	}
	return nil
}

// headerValueSize returns the wire size of a header value of type typ at
// the start of h, and whether it is a string or bytes value.
func headerValueSize(typ byte, h []byte) (size int, str bool, err error) {
	switch typ {
	case 0, 1: // true, false
	case 2: // int8
		size = 1
	case 3: // int16
		size = 2
	case 4: // int32
		size = 4
	case 5, 8: // int64, timestamp
		size = 8
	case 9: // uuid
		size = 16
	case 6, 7: // bytes and string, a 16-bit length and then the value
		if len(h) < 2 {
			return 0, false, errHeaders
		}
		size, str = 2+int(binary.BigEndian.Uint16(h)), true
	default:
		return 0, false, fmt.Errorf("eventstream: header of unknown value type %d", typ)
	}
	if len(h) < size {
		return 0, false, errHeaders
	}
	return size, str, nil
}

func (m *EventMessage) setHeader(name, v []byte) {
	switch string(name) {
	case ":event-type":
		m.EventType = v
	case ":message-type":
		m.MessageType = v
	case ":exception-type":
		m.ExceptionType = v
	case ":error-code":
		m.ErrorCode = v
	case ":error-message":
		m.ErrorMessage = v
	}
}
