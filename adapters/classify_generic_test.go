package adapters

import "testing"

func TestGenericSSEFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return Lookup("sse").NewDecoder(0) }
	// Every data event is content; EOF is the end.
	checkFrames(t, dec, []byte(": hi\n\ndata: one\n\nevent: x\ndata: {\"a\":1}\n\n"), []string{
		"ping", "content:text:one", "content:text:{\"a\":1}", "end",
	})
	// [DONE] is the end; an error event or a JSON error is an error.
	checkFrames(t, dec, []byte("data: x\n\nevent: error\ndata: boom\n\ndata: {\"error\":{\"message\":\"bad\"}}\n\ndata: [DONE]\n\n"), []string{
		"content:text:x", "error:boom", "error:bad", "end",
	})
	if _, err := decodeReads(dec(), [][]byte{[]byte("data: cut")}); err != ErrTruncated {
		t.Errorf("cut event: %v, want ErrTruncated (and no end)", err)
	}
}

func TestGenericNDJSONFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return Lookup("ndjson").NewDecoder(0) }
	checkFrames(t, dec, []byte("{\"t\":1}\n\n{\"t\":2}\r\n{\"error\":\"no\"}\n"), []string{
		"content:text:{\"t\":1}", "content:text:{\"t\":2}", "error:no", "end",
	})
}

func TestRawFrames(t *testing.T) {
	t.Parallel()
	frames, err := decodeReads(Lookup("raw").NewDecoder(0), [][]byte{[]byte("ab"), nil, []byte("c")})
	if err != nil || len(frames) != 3 || frameString(frames[0]) != "content:text:ab" || frames[2].Kind != KindEnd {
		t.Errorf("raw frames %v, %v: want one content frame per read, then the end", frames, err)
	}
}
