package adapters

import (
	"bytes"
	"encoding/base64"
	"errors"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
)

// eventStream encodes Bedrock event messages, :event-type then payload.
func eventStream(typeAndPayload ...string) []byte {
	var b bytes.Buffer
	enc := eventstream.NewEncoder()
	for i := 0; i+1 < len(typeAndPayload); i += 2 {
		var h eventstream.Headers
		h.Set(":message-type", eventstream.StringValue("event"))
		h.Set(":event-type", eventstream.StringValue(typeAndPayload[i]))
		enc.Encode(&b, eventstream.Message{Headers: h, Payload: []byte(typeAndPayload[i+1])})
	}
	return b.Bytes()
}

func invokeChunk(event string) string {
	return `{"bytes":"` + base64.StdEncoding.EncodeToString([]byte(event)) + `"}`
}

// An event a JSON format cannot read is kept as a meta frame with its
// bytes and text, and the stream fails decode naming the event, even when
// the end marker came after it: a client of that API would have failed on it.
func TestUndecodableEventFailsDecode(t *testing.T) {
	t.Parallel()
	cut := `{"choices":[{"delta":{"content":" the`
	for _, c := range []struct {
		format, bad, message string
		stream               []byte
	}{
		{"openai-chat", cut, "event 3 is not JSON: " + cut, []byte(
			"data: {\"choices\":[{\"delta\":{\"content\":\"Hi\"}}]}\n\n: ping\n\ndata: " + cut + "\n\ndata: [DONE]\n\n")},
		{"openai-completions", "<html>", "event 1 is not JSON: <html> (and 1 more)", []byte(
			"data: <html>\n\ndata: {\"choices\":[{\"text\":\"Hi\"}]}\n\ndata: </html>\n\ndata: [DONE]\n\n")},
		{"openai-responses", `{"delta":5}`, `event 1 is JSON the format cannot read: {"delta":5}`, []byte(
			"data: {\"delta\":5}\n\ndata: {\"type\":\"response.completed\"}\n\n")},
		{"anthropic", "oops", "event 2 is not JSON: oops", []byte(
			"event: ping\ndata: {\"type\":\"ping\"}\n\nevent: content_block_delta\ndata: oops\n\nevent: message_stop\ndata: {\"type\":\"message_stop\"}\n\n")},
		{"gemini", "oops", "event 1 is not JSON: oops", []byte(
			"data: oops\n\ndata: {\"candidates\":[{\"content\":{\"parts\":[{\"text\":\"Hi\"}]},\"finishReason\":\"STOP\"}]}\n\n")},
		{"tgi", "oops", "event 1 is not JSON: oops", []byte(
			"data: oops\n\ndata: {\"token\":{\"text\":\"Hi\"},\"generated_text\":\"Hi\",\"details\":{\"generated_tokens\":1}}\n\n")},
		{"ollama-chat", "oops", "event 2 is not JSON: oops", []byte(
			"{\"message\":{\"content\":\"Hi\"},\"done\":false}\noops\n{\"done\":true,\"eval_count\":1}\n")},
		{"bedrock-converse", "oops", "event 1 is not JSON: oops", eventStream(
			"contentBlockDelta", "oops", "messageStop", "{}")},
		{"bedrock-invoke", "oops", "event 1 is not JSON: oops", eventStream(
			"chunk", invokeChunk("oops"), "chunk", invokeChunk(`{"type":"message_stop"}`))},
		{"bedrock-invoke", `{"bytes":"%%"}`, `event 1 is JSON the format cannot read: {"bytes":"%%"}`, eventStream(
			"chunk", `{"bytes":"%%"}`, "chunk", invokeChunk(`{"type":"message_stop"}`))},
	} {
		for _, size := range []int{1 << 20, 1} {
			frames, err := decodeReads(Lookup(c.format).NewDecoder(0), splitReads(c.stream, size))
			if !errors.Is(err, ErrUndecodable) || err.Error() != "undecodable event: "+c.message {
				t.Errorf("%s in %d-byte reads: error %v, want %q", c.format, size, err, c.message)
			}
			kept, bytes := false, 0
			for _, f := range frames {
				kept = kept || f.Kind == KindMeta && f.Text == c.bad
				bytes += f.Bytes
			}
			if !kept || bytes != len(c.stream) {
				t.Errorf("%s: frames %v account for %d bytes of %d; want a meta frame with text %q", c.format, frames, bytes, len(c.stream), c.bad)
			}
		}
	}
}

// What the formats send as non-JSON on purpose stays as it was.
func TestDeliberateNonJSONIsNotUndecodable(t *testing.T) {
	t.Parallel()
	for format, stream := range map[string]string{
		"openai-chat": ": keep-alive\n\ndata:\n\nevent: ping\n\ndata: [DONE]\n\n",
		"anthropic":   ": hi\n\nevent: ping\ndata: {\"type\": \"ping\"}\n\nevent: error\ndata: upstream closed\n\n",
		"ollama-chat": "\n{\"done\":true}\n\n",
	} {
		if _, err := decodeReads(Lookup(format).NewDecoder(0), [][]byte{[]byte(stream)}); err != nil {
			t.Errorf("%s: %v", format, err)
		}
	}
}

func TestExcerptIsCutAtARune(t *testing.T) {
	t.Parallel()
	s := strings.Repeat("é", 41) + "\xff"
	if got, want := excerpt(s), strings.Repeat("é", 40)+"…"; got != want {
		t.Errorf("excerpt %q, want %q", got, want)
	}
	if got := excerpt("a\xffb"); got != "a\uFFFDb" {
		t.Errorf("excerpt %q, want invalid UTF-8 replaced", got)
	}
}
