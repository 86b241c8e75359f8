package adapters

import "testing"

func FuzzAnthropic(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewAnthropicDecoder(0) }, testdataFile(f, "anthropic_text.sse"), testdataFile(f, "anthropic_tool.sse"), testdataFile(f, "anthropic_thinking.sse"), testdataFile(f, "anthropic_error.sse"))
}
