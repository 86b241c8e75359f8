package probe

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
)

// CheckJSONBody reports a fixed request body (-d) that is empty or not
// JSON: drip sends JSON in every format, --body FILE sends any bytes.
func CheckJSONBody(b []byte) error {
	if len(bytes.TrimSpace(b)) == 0 {
		return errors.New("the body is empty")
	}
	if !json.Valid(b) {
		var v any
		return fmt.Errorf("the body is not JSON (%v); -d takes a JSON body, --body FILE sends any bytes as is", json.Unmarshal(b, &v))
	}
	return nil
}

// MergeBody lays extra over a generated JSON request body: an object in
// both is merged key by key, anything else in extra replaces what the body
// had (--extra-body '{"temperature":0,"ignore_eos":true}').
func MergeBody(body []byte, extra map[string]json.RawMessage) ([]byte, error) {
	var base map[string]json.RawMessage
	if err := json.Unmarshal(body, &base); err != nil {
		return nil, fmt.Errorf("the generated body is not a JSON object: %w", err)
	}
	if base == nil {
		base = map[string]json.RawMessage{}
	}
	for k, v := range extra {
		merged, err := mergeValue(base[k], v)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", k, err)
		}
		base[k] = merged
	}
	return json.Marshal(base)
}

func mergeValue(old, extra json.RawMessage) (json.RawMessage, error) {
	if !isObject(old) || !isObject(extra) {
		return extra, nil
	}
	var o, e map[string]json.RawMessage
	if err := json.Unmarshal(old, &o); err != nil {
		return nil, err
	}
	if err := json.Unmarshal(extra, &e); err != nil {
		return nil, err
	}
	for k, v := range e {
		m, err := mergeValue(o[k], v)
		if err != nil {
			return nil, err
		}
		o[k] = m
	}
	return json.Marshal(o)
}

func isObject(v json.RawMessage) bool {
	v = bytes.TrimSpace(v)
	return len(v) > 0 && v[0] == '{'
}
