package probe

import (
	"encoding/json"
	"testing"
)

func TestMergeBody(t *testing.T) {
	body := []byte(`{"model":"m","stream":true,"stream_options":{"include_usage":true},"max_tokens":5}`)
	extra := map[string]json.RawMessage{
		"temperature":    json.RawMessage(`0`),
		"ignore_eos":     json.RawMessage(`true`),
		"stream_options": json.RawMessage(`{"continuous_usage_stats":true}`),
		"max_tokens":     json.RawMessage(`64`),
	}
	got, err := MergeBody(body, extra)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"ignore_eos":true,"max_tokens":64,"model":"m","stream":true,"stream_options":{"continuous_usage_stats":true,"include_usage":true},"temperature":0}`
	if string(got) != want {
		t.Errorf("merged\n  %s\nwant\n  %s", got, want)
	}
	if _, err := MergeBody([]byte(`[1]`), extra); err == nil {
		t.Error("a body that is not an object merged without error")
	}
}
