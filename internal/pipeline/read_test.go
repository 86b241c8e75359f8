package pipeline

import (
	"errors"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// Without relays there is no report; a relay file that matches none of
// the client's streams is a usage error naming it.
func TestReadRelays(t *testing.T) {
	steady := filepath.Join("..", "..", "compare", "testdata", "steady.jsonl")
	in, err := Read(steady, steady, io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	if rep, err := ReadRelays(steady, in.Records, nil, io.Discard); rep != nil || err != nil {
		t.Errorf("no relays: %v, %v", rep, err)
	}
	stall := filepath.Join("..", "..", "compare", "testdata", "stall.jsonl")
	_, err = ReadRelays(steady, in.Records, []string{stall}, io.Discard)
	var ee *ExitError
	if !errors.As(err, &ee) || ee.Code != ExitUsage || !strings.Contains(err.Error(), "stall.jsonl") {
		t.Errorf("a relay file that does not belong: %v, want exit 2 naming it", err)
	}
}
