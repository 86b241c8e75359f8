package relay

import "testing"

// drip record's line names canceled streams (a client gone, or Ctrl-C
// mid-stream) once there are some: "3 streams, 0 failed" alone read as
// three whole streams.
func TestRecordCountsNameCanceledStreams(t *testing.T) {
	var s Stats
	s.Recorded.Store(3)
	s.Streams.Store(3)
	if got, want := counts(&s), "3 exchanges (3 streams, 0 failed, 0 passthrough)"; got != want {
		t.Errorf("no canceled stream: %q, want %q", got, want)
	}
	s.Canceled.Store(1)
	if got, want := counts(&s), "3 exchanges (3 streams, 0 failed, 1 canceled, 0 passthrough)"; got != want {
		t.Errorf("one canceled: %q, want %q", got, want)
	}
}
