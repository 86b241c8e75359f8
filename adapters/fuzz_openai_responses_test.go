package adapters

import "testing"

func FuzzResponses(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewResponsesDecoder(0) }, testdataFile(f, "responses_reasoning.sse"), testdataFile(f, "responses_tool.sse"), testdataFile(f, "responses_error.sse"))
}
