package adapters

import "testing"

func FuzzGemini(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewGeminiDecoder(0) }, testdataFile(f, "gemini.sse"), testdataFile(f, "gemini_thought.sse"))
}
