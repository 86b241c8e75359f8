package telemetry

import (
	"errors"
	"strings"
	"testing"
)

// A failed push is said a line per error it joined: the collector's
// echoed credential masked, its newlines and control sequences gone, each
// line cut at errorLine bytes and marked so.
func TestErrorLinesMaskFoldAndCut(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_HEADERS", "Authorization=Bearer s3cret-token")
	err := errors.Join(
		errors.New("401: bad token s3cret-token\n\x1b[2Jagain"),
		errors.New(strings.Repeat("x", 4<<10)),
	)
	lines := errorLines(err)
	if len(lines) != 2 {
		t.Fatalf("%d lines, want 2: %q", len(lines), lines)
	}
	if strings.Contains(lines[0], "s3cret") || strings.ContainsAny(lines[0], "\n\x1b") || !strings.HasPrefix(lines[0], "401: bad token ") {
		t.Errorf("line %q: want the token masked, one line, no control", lines[0])
	}
	if limit := errorLine + len("…"); len(lines[1]) > limit || !strings.HasSuffix(lines[1], "…") {
		t.Errorf("a 4 KiB body said in %d bytes, want it cut to %d and marked", len(lines[1]), limit)
	}
}
