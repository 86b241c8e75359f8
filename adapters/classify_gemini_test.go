package adapters

import "testing"

func TestGeminiFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return NewGeminiDecoder(0) }
	frames := checkFrames(t, dec, testdataFile(t, "gemini.sse"), []string{
		"content:text:The=1",
		"content:text: current stock price for Alphabet Inc. (Google) Class C (GOOG)=17",
		"content:text: financial websites like Google Finance or TradingView.\n=106",
		"usage=106", // content {}: grounding metadata only
		"end",       // EOF after finishReason
	})
	if frames[1].Tokens != 16 || frames[0].Tokens != 1 {
		t.Errorf("tokens per frame %d, %d: want the cumulative count's differences 1, 16", frames[0].Tokens, frames[1].Tokens)
	}
	checkFrames(t, dec, testdataFile(t, "gemini_thought.sse"), []string{
		"content:reasoning:**Calculating**\n\nFirst=72", "content:text:391=74", "end",
	})
	// No finishReason: EOF is not an end.
	checkFrames(t, dec, []byte(`data: {"candidates":[{"content":{"parts":[{"text":"Hi"}]}}]}`+"\n\n"), []string{"content:text:Hi"})
	checkFrames(t, dec, []byte(`data: {"error":{"code":500,"message":"Internal error","status":"INTERNAL"}}`+"\n\n"), []string{"error:Internal error"})
}
