package adapters

import (
	"bytes"
	"encoding/binary"
	"errors"
	"hash/crc32"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

func TestBedrockConverseFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return NewBedrockConverseDecoder(0) }
	frames := checkFrames(t, dec, eventStreamFile(t, "bedrock_converse.events"), []string{
		"role", "content:reasoning:The user asks", "role", "meta",
		"content:text:Hello", "content:text: world", "meta",
		"meta", "content:tool:{\"city\":", "content:tool:\"Paris\"}", "meta",
		"end", "usage=42",
	})
	checkServer(t, frames[len(frames)-1].Server, map[string]float64{"latency_ms": 1234, "input_tokens": 25})
	// FORMATS §6.1's worked example, byte for byte.
	checkFrames(t, dec, hexTestdata(t, "bedrock_worked_example.hex"), []string{"content:text:Hi"})
}

func TestBedrockInvokeFrames(t *testing.T) {
	t.Parallel()
	frames := checkFrames(t, func() Decoder { return NewBedrockInvokeDecoder(0) }, eventStreamFile(t, "bedrock_invoke.events"),
		[]string{"role", "content:text:Hi", "end=6"})
	checkServer(t, frames[2].Server, map[string]float64{"invocation_latency_ms": 812, "first_byte_latency_ms": 402, "input_tokens": 12})
}

func TestBedrockExceptions(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	var h eventstream.Headers
	h.Set(":message-type", eventstream.StringValue("exception"))
	h.Set(":exception-type", eventstream.StringValue("ValidationException"))
	enc.Encode(&b, eventstream.Message{Headers: h, Payload: []byte(`{"message": "Unable to parse input chunk."}`)})
	h = nil
	h.Set(":message-type", eventstream.StringValue("error"))
	h.Set(":error-code", eventstream.StringValue("AnErrorCode"))
	h.Set(":error-message", eventstream.StringValue("An error message"))
	enc.Encode(&b, eventstream.Message{Headers: h})
	for _, newDec := range []func() Decoder{
		func() Decoder { return NewBedrockConverseDecoder(0) }, func() Decoder { return NewBedrockInvokeDecoder(0) },
	} {
		checkFrames(t, newDec, b.Bytes(), []string{
			"error:ValidationException: Unable to parse input chunk.", "error:AnErrorCode: An error message",
		})
	}
}

// Corrupt input is a decode error, never a panic or a large allocation.
func TestBedrockCorruptMessages(t *testing.T) {
	good := hexTestdata(t, "bedrock_worked_example.hex")
	prelude := func(total, headers uint32) []byte {
		p := binary.BigEndian.AppendUint32(nil, total)
		p = binary.BigEndian.AppendUint32(p, headers)
		return binary.BigEndian.AppendUint32(p, crc32.ChecksumIEEE(p))
	}
	badMsgCRC := bytes.Clone(good)
	badMsgCRC[len(badMsgCRC)-1] ^= 1
	badPrelude := bytes.Clone(good)
	badPrelude[9] ^= 1
	badPayload := bytes.Clone(good)
	badPayload[120] ^= 1
	for _, tc := range []struct {
		name string
		data []byte
		want error // nil: any error
	}{
		{"message CRC", badMsgCRC, nil},
		{"payload bit flip", badPayload, nil},
		{"prelude CRC", badPrelude, ErrChecksum},
		{"declared 4 GiB", prelude(0xFFFFFFF0, 0), ErrFrameTooLarge},
		{"declared beyond the limit", prelude(1<<20, 0), ErrFrameTooLarge},
		{"headers longer than the message", prelude(32, 100), nil},
		{"shorter than a message can be", prelude(8, 0), nil},
		{"truncated", good[:100], ErrTruncated},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := NewBedrockConverseDecoder(64 << 10)
			allocs := testing.AllocsPerRun(1, func() {
				d = NewBedrockConverseDecoder(64 << 10)
				decodeReads(d, [][]byte{tc.data})
			})
			_, err := decodeReads(NewBedrockConverseDecoder(64<<10), [][]byte{tc.data})
			if err == nil || (tc.want != nil && !errors.Is(err, tc.want)) {
				t.Errorf("err %v, want %v", err, tc.want)
			}
			if allocs > 100 {
				t.Errorf("%v allocations for a %d-byte input", allocs, len(tc.data))
			}
		})
	}
}
