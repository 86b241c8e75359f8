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

// TestCheckJSONBody: -d's body must be JSON and not blank.
func TestCheckJSONBody(t *testing.T) {
	for body, want := range map[string]string{
		`{"model":"m"}`: "",
		" \n":           "the body is empty",
		"{not json":     "the body is not JSON (invalid character 'n' looking for beginning of object key string); -d takes a JSON body, --body FILE sends any bytes as is",
	} {
		err := CheckJSONBody([]byte(body))
		if (want == "" && err != nil) || (want != "" && (err == nil || err.Error() != want)) {
			t.Errorf("%q: %v, want %q", body, err, want)
		}
	}
}
