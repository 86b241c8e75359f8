package adapters

import "testing"

func TestResponsesFrames(t *testing.T) {
	t.Parallel()
	dec := func() Decoder { return NewResponsesDecoder(0) }
	checkFrames(t, dec, testdataFile(t, "responses_reasoning.sse"), []string{
		"role", "meta", "meta", "meta",
		"content:reasoning:**Calcul", "content:reasoning:ating",
		"meta", "meta", "meta", "meta", "meta",
		"content:text:The", "content:text: sum",
		"meta", "meta", "meta", "end=122",
	})
	checkFrames(t, dec, testdataFile(t, "responses_tool.sse"), []string{
		"meta", "content:tool:{\"city\":", "content:tool:\"Paris\"}", "meta",
	})
	checkFrames(t, dec, testdataFile(t, "responses_error.sse"), []string{
		"error:The server had an error.", "error:Foobar", "error:Foobar",
	})
}
