package adapters

import "testing"

func TestTGIFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return NewTGIDecoder(0) }
	frames := checkFrames(t, dec, testdataFile(t, "tgi.sse"), []string{
		"content:text: Deep", "content:text: Learning", "ping", "content:text:.", "end=12",
	})
	if frames[4].Bytes != 0 || frames[3].Bytes == 0 {
		t.Error("the last event's bytes belong to its token frame")
	}
	checkFrames(t, dec, testdataFile(t, "tgi_error.sse"), []string{
		"content:text: Deep", "error:Request failed during generation: Server error: CUDA out of memory",
	})
	// A special end-of-sequence token is not content; the event still ends.
	checkFrames(t, dec, []byte(`data:{"index":3,"token":{"id":2,"text":"</s>","logprob":0,"special":true},"generated_text":"Hi","details":{"finish_reason":"eos_token","generated_tokens":3}}`+"\n\n"),
		[]string{"end=3"})
}
