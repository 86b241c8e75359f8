package adapters

import "testing"

func FuzzGenericSSE(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewGenericSSEDecoder(64 << 10) },
		testdataFile(f, "anthropic_text.sse"), []byte("data: x\n\nevent: error\ndata: boom\n\ndata: [DONE]\n\n"))
}

func FuzzGenericNDJSON(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewGenericNDJSONDecoder(64 << 10) },
		testdataFile(f, "ollama_chat.ndjson"), []byte("{\"t\":1}\n\n{\"error\":\"no\"}\r\n{\"cut"))
}

// FuzzDetect covers detection and, through it, every decoder it picks.
func FuzzDetect(f *testing.F) {
	for _, ct := range []string{"", "text/event-stream", "application/x-ndjson", "application/vnd.amazon.eventstream"} {
		f.Add(ct, testdataFile(f, "anthropic_text.sse"))
		f.Add(ct, testdataFile(f, "ollama_generate.ndjson"))
		f.Add(ct, eventStreamFile(f, "bedrock_invoke.events"))
		f.Add(ct, []byte("plain words"))
	}
	f.Fuzz(func(t *testing.T, ct string, data []byte) {
		d, ds := NewDetector(ct, 64<<10), NewDetector(ct, 64<<10)
		whole, werr := decodeReads(d, [][]byte{data})
		split, serr := decodeReads(ds, splitReads(data, 3))
		if d.Format() == nil || ds.Format() == nil {
			t.Fatal("no format after Close")
		}
		// The same format, decoded in small reads, gives the same frames
		// (raw excepted: its frames are the reads).
		if d.Format() == ds.Format() && d.Format().Name != "raw" && werr == nil && serr == nil && len(whole) != len(split) {
			t.Fatalf("%s: 3-byte reads give %d frames, whole %d", d.Format().Name, len(split), len(whole))
		}
	})
}
