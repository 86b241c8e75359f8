package calibrate

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/driplab/drip/stats"
)

func TestSaturatedRowSaysItMeasuresTheMachine(t *testing.T) {
	t.Parallel()
	f := func(v float64) *float64 { return &v }
	p99 := 14.0
	ld := Load{Cores: 2, ClientLag: stats.Dist{N: 4000, P99: &p99}, DripCores: f(1.9), MachineCores: f(1.98)}
	line := loadLine(ld, ld.Judge())
	for _, want := range []string{"client 14 ms", "drip 1.90, machine 1.98 of 2 cores", "⚠ saturated (client schedule lag p99 14 ms ≥ 1 ms",
		"1.98 of 2 cores busy ≥ 90 %", "loaded by drip's own client and server", "this row measures the machine, not drip"} {
		if !strings.Contains(line, want) {
			t.Errorf("load line lacks %q:\n%s", want, line)
		}
	}
	var w strings.Builder
	resolution{saturated: []string{"10"}, small: true}.write(&w, true)
	if got := w.String(); !strings.Contains(got, "saturated at 10 streams") || !strings.Contains(got, "no unsaturated level") || strings.Contains(got, "--server-proc") {
		t.Errorf("verdict with only a saturated level, served from a separate process:\n%s", got)
	}
}

// A verdict names the levels it read: with 10 streams saturated and left
// out, the resolution is that of 1 stream, not "up to 10".
func TestVerdictNamesTheLevelsItRead(t *testing.T) {
	t.Parallel()
	p99 := 2.58
	for _, tc := range []struct {
		upTo      int
		saturated []string
		want      string
	}{
		{1, []string{"10"}, "verdict: at up to 1 concurrent stream this machine resolves gap differences of 2.6 ms or more"},
		{10, nil, "verdict: at up to 10 concurrent streams this machine resolves gap differences of 2.6 ms or more"},
	} {
		var w strings.Builder
		resolution{worst: &p99, upTo: tc.upTo, saturated: tc.saturated, small: true}.write(&w, false)
		if !strings.Contains(strings.Join(strings.Fields(w.String()), " "), tc.want) { // wrapped at 80 columns
			t.Errorf("up to %d, saturated %v:\n%s\nwant %q", tc.upTo, tc.saturated, w.String(), tc.want)
		}
	}
}

// TestCheckNamesTheFlag: rounds first, then each level in turn, each
// error naming its flag and bound.
func TestCheckNamesTheFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		c    Config
		want string
	}{
		{Config{Rounds: 2, Levels: []int{1, 10, MaxLevel}}, ""},
		{Config{Rounds: 0, Levels: []int{0}}, "--rounds 0: must be at least 1"},
		{Config{Rounds: MaxRounds + 1}, "--rounds 1001: must be at most 1000"},
		{Config{Rounds: 1, Levels: []int{1, 0}}, "--concurrency 0: must be at least 1"},
		{Config{Rounds: 1, Levels: []int{2001}}, "--concurrency 2001: must be at most 2000"},
	} {
		err := tc.c.Check()
		if got := fmt.Sprint(err); (tc.want == "" && err != nil) || (tc.want != "" && got != tc.want) {
			t.Errorf("%+v: %v, want %q", tc.c, err, tc.want)
		}
	}
}

// A level's CPU line prints a time as the reports do, with its unit
// ("0.36 ms"), never as a Go duration ("358.4µs").
func TestLevelPrintsTimesAsTheReportsDo(t *testing.T) {
	t.Parallel()
	cpu, server := 358400*time.Nanosecond, 1500*time.Microsecond
	l := Level{Concurrency: 1, Streams: 2, Frames: 400, StampErr: []float64{0.119, 0.275}, GapErr: []float64{0.044}, TTFTErr: []float64{12.5},
		ClientCPU: &cpu, ServerCPU: &server}
	var w strings.Builder
	writeLevel(&w, l, Verdict{})
	out := w.String()
	for _, want := range []string{"CPU per frame client 0.36 ms · server 1.5 ms"} {
		if !strings.Contains(out, want) {
			t.Errorf("level lacks %q:\n%s", want, out)
		}
	}
	if strings.Contains(out, "µs") {
		t.Errorf("level prints a Go duration:\n%s", out)
	}
	if row, _, _ := strings.Cut(out, "\n"); len(row) > 80 {
		t.Errorf("row of %d columns: %q", len(row), row)
	}
}
