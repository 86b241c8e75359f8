package adapters

import "testing"

func FuzzOllama(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewOllamaDecoder(0) }, testdataFile(f, "ollama_generate.ndjson"), testdataFile(f, "ollama_chat.ndjson"), testdataFile(f, "ollama_thinking.ndjson"), testdataFile(f, "ollama_error.ndjson"))
}
