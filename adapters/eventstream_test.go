package adapters

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"hash/crc32"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// The hand-written message parser is held to aws-sdk-go-v2's eventstream
// decoder: on every message whose prelude passes, both accept or both
// reject, and they agree on the headers drip reads and on the payload.

// awsView is what drip reads of a message decoded by the aws decoder.
func awsView(m *eventstream.Message) string {
	h := func(name string) string {
		switch v := m.Headers.Get(name).(type) {
		case eventstream.StringValue:
			return string(v)
		case eventstream.BytesValue:
			return string(v)
		}
		return ""
	}
	return fmt.Sprintf("%q %q %q %q %q %q", h(":event-type"), h(":message-type"), h(":exception-type"),
		h(":error-code"), h(":error-message"), m.Payload)
}

func ourView(m *EventMessage) string {
	return fmt.Sprintf("%q %q %q %q %q %q", m.EventType, m.MessageType, m.ExceptionType,
		m.ErrorCode, m.ErrorMessage, m.Payload)
}

func checkMessage(t testing.TB, data []byte) {
	t.Helper()
	d := EventStream{Limit: 64 << 10}
	if len(data) < esPreludeLen {
		return
	}
	total, err := d.prelude(data)
	if err != nil || len(data) < total {
		return
	}
	data = data[:total]
	var ours EventMessage
	oerr := ours.parse(data)
	ref, rerr := eventstream.NewDecoder().Decode(bytes.NewReader(data), nil)
	if (oerr == nil) != (rerr == nil) {
		t.Fatalf("%x: ours %v, aws-sdk-go-v2 %v", data, oerr, rerr)
	}
	if oerr == nil && ourView(&ours) != awsView(&ref) {
		t.Fatalf("%x:\nours %s\naws  %s", data, ourView(&ours), awsView(&ref))
	}
}

// rawMessage frames headers and payload as given, with correct CRCs, so
// malformed headers reach the parser.
func rawMessage(headers, payload []byte) []byte {
	total := uint32(esMinMessageLen + len(headers) + len(payload))
	b := binary.BigEndian.AppendUint32(nil, total)
	b = binary.BigEndian.AppendUint32(b, uint32(len(headers)))
	b = binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
	b = append(append(b, headers...), payload...)
	return binary.BigEndian.AppendUint32(b, crc32.ChecksumIEEE(b))
}

// messageSeeds are well-formed messages with every header type, and
// malformed header blocks at each edge the parser handles.
func messageSeeds(t testing.TB) [][]byte {
	var b bytes.Buffer
	var h eventstream.Headers
	h.Set(":event-type", eventstream.StringValue("contentBlockDelta"))
	h.Set(":message-type", eventstream.BytesValue("event"))
	h.Set(":exception-type", eventstream.Int32Value(7))
	h.Set("b", eventstream.BoolValue(true))
	h.Set("f", eventstream.BoolValue(false))
	h.Set("i8", eventstream.Int8Value(1))
	h.Set("i16", eventstream.Int16Value(2))
	h.Set("i64", eventstream.Int64Value(3))
	h.Set("u", eventstream.UUIDValue{1, 2})
	h.Set(":error-code", eventstream.StringValue(""))
	if err := eventstream.NewEncoder().Encode(&b, eventstream.Message{Headers: h, Payload: []byte(`{"delta":{"text":"a"}}`)}); err != nil {
		t.Fatal(err)
	}
	seeds := [][]byte{b.Bytes(), hexTestdata(t, "bedrock_worked_example.hex"), eventStreamFile(t, "bedrock_converse.events")}
	for _, hdr := range []string{
		"\x05", "\x00", "\x00\x00", "\x03:ab", "\x03:a", "\x01x\x07\x00", "\x01x\x07\x00\x05ab", "\x01x\x0a",
		"\x01x\x09\x00", "\x0b:event-type\x07\x00\x01a\x0b:event-type\x00", "\x0b:event-type\x06\x00\x02ab",
	} {
		seeds = append(seeds, rawMessage([]byte(hdr), []byte("{}")))
	}
	return seeds
}

func TestEventStreamMatchesAWS(t *testing.T) {
	t.Parallel()
	for _, s := range messageSeeds(t) {
		for len(s) >= esPreludeLen {
			checkMessage(t, s)
			s = s[binary.BigEndian.Uint32(s):]
		}
	}
}

func FuzzEventStreamMessage(f *testing.F) {
	for _, s := range messageSeeds(f) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		// Fix the CRCs up so that fuzzed headers reach the parser, and
		// check the bytes as given too.
		checkMessage(t, data)
		if len(data) >= esMinMessageLen {
			h := min(int(binary.BigEndian.Uint32(data[4:8])), len(data)-esMinMessageLen)
			checkMessage(t, rawMessage(data[esPreludeLen:esPreludeLen+h], data[esPreludeLen+h:len(data)-4]))
		}
	})
}
