package adapters

import (
	"encoding/binary"
	"hash/crc32"
	"testing"
)

// The event-stream decoders run with a 64 KiB limit, so a declared length
// beyond it must fail at once rather than be waited for.
func bedrockSeeds(f *testing.F) [][]byte {
	good := hexTestdata(f, "bedrock_worked_example.hex")
	big := binary.BigEndian.AppendUint32(nil, 0x7FFFFFFF)
	big = binary.BigEndian.AppendUint32(big, 0)
	big = binary.BigEndian.AppendUint32(big, crc32.ChecksumIEEE(big))
	return [][]byte{
		eventStreamFile(f, "bedrock_converse.events"), eventStreamFile(f, "bedrock_invoke.events"),
		good, good[:len(good)-3], append(big, good...),
	}
}

func FuzzBedrockConverse(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewBedrockConverseDecoder(64 << 10) }, bedrockSeeds(f)...)
}

func FuzzBedrockInvoke(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewBedrockInvokeDecoder(64 << 10) }, bedrockSeeds(f)...)
}
