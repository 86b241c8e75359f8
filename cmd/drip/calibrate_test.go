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

	"github.com/driplab/drip/internal/calibrate"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/stats"
)

// TestCalibrateServerProcRealBinary: --server-proc re-runs the drip binary
// as the fixture server, pairs every frame across the two processes, counts
// the server's CPU apart, and ends the server process with the command;
// every line fits 80 columns.
func TestCalibrateServerProcRealBinary(t *testing.T) {
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
	row := regexp.MustCompile(`(?m)^2\s+2\s+400\s.*\n  CPU per frame client \S+ · server \S+ · load:`)
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

func TestSaturatedRowSaysItMeasuresTheMachine(t *testing.T) {
	f := func(v float64) *float64 { return &v }
	p99 := 14.0
	ld := calibrate.Load{Cores: 2, ClientLag: stats.Dist{N: 4000, P99: &p99}, DripCores: f(1.9), MachineCores: f(1.98)}
	line := loadLine(ld, ld.Judge())
	for _, want := range []string{"client 14.00 ms", "drip 1.90, machine 1.98 of 2 cores", "⚠ saturated (client schedule lag p99 14 ms ≥ 1 ms",
		"1.98 of 2 cores busy ≥ 90 %", "loaded by drip's own client and server", "this row measures the machine, not drip"} {
		if !strings.Contains(line, want) {
			t.Errorf("load line lacks %q:\n%s", want, line)
		}
	}
	var w strings.Builder
	printVerdict(&w, nil, 0, []string{"10"}, true, true)
	if got := w.String(); !strings.Contains(got, "saturated at 10 streams") || !strings.Contains(got, "no unsaturated level") || strings.Contains(got, "--server-proc") {
		t.Errorf("verdict with only a saturated level, served from a separate process:\n%s", got)
	}
}

// A verdict names the levels it read: with 10 streams saturated and left
// out, the resolution is that of 1 stream, not "up to 10".
func TestVerdictNamesTheLevelsItRead(t *testing.T) {
	p99 := 2.58
	for _, tc := range []struct {
		upTo      int
		saturated []string
		want      string
	}{
		{1, []string{"10"}, "verdict: at up to 1 concurrent stream this machine resolves gap differences of 2.58 ms or more"},
		{10, nil, "verdict: at up to 10 concurrent streams this machine resolves gap differences of 2.58 ms or more"},
	} {
		var w strings.Builder
		printVerdict(&w, &p99, tc.upTo, tc.saturated, false, true)
		if !strings.Contains(strings.Join(strings.Fields(w.String()), " "), tc.want) { // wrapped at 80 columns
			t.Errorf("up to %d, saturated %v:\n%s\nwant %q", tc.upTo, tc.saturated, w.String(), tc.want)
		}
	}
}
