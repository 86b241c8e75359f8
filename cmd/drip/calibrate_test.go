package main

import (
	"bytes"
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/report"
)

// TestCalibrateServerProcRealBinary: --server-proc re-runs the drip binary
// as the fixture server, pairs every frame across the two processes, counts
// the server's CPU apart, and ends the server process with the command;
// every line fits 80 columns.
func TestCalibrateServerProcRealBinary(t *testing.T) {
	t.Parallel()
	bin := builtDrip(t)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	var stdout, stderr bytes.Buffer
	cmd := exec.CommandContext(ctx, bin, "calibrate", "--server-proc", "--concurrency", "2", "--rounds", "1")
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("drip calibrate --server-proc: %v\n%s%s", err, stdout.String(), stderr.String())
	}
	out := stdout.String()
	row := regexp.MustCompile(`(?m)^2\s+400\s.*\n  2 streams · CPU per frame client [0-9.]+ ms · server [0-9.]+ ms · load:`)
	words := strings.Join(strings.Fields(out), " ") // the lines under a row wrap at 80 columns
	for _, want := range []string{"server in a separate process", "load: schedule lag p99 client ", ", server "} {
		if !strings.Contains(words, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	if !row.MatchString(out) || strings.Contains(out, "could not be paired") || strings.Contains(out, "server —") {
		t.Errorf("want a row of 2 streams, 400 frames all paired, with the client's and the server's CPU per frame")
	}
	for l := range strings.Lines(out) {
		if w := ansi.StringWidth(strings.TrimSuffix(l, "\n")); w > report.Width {
			t.Errorf("a line of %d columns, over %d: %q", w, report.Width, l)
		}
	}
	if t.Failed() {
		t.Log("\n" + out + stderr.String())
	}
}
