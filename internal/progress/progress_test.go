package progress_test

import (
	"strings"
	"testing"

	"github.com/driplab/drip/internal/progress"
	"github.com/driplab/drip/record"
)

// A stream's line is numbered as the screens number streams (#1 is seq
// 0); a stream with no token count shows —, never 0 approximated, and an
// approximated count is marked ~; stalls and the error are said only when
// there are some, the server's message made safe to print.
func TestLineSaysOnlyWhatAStreamHas(t *testing.T) {
	t.Parallel()
	ttft, e2e := 120.0, 900.0
	ok := &record.Record{Seq: 0, PromptID: "a", Status: "ok", TTFTMS: &ttft, E2EMS: &e2e, OutputTokens: 7, ContentFrames: 7, TokensSource: "approx",
		Stalls: []record.Stall{{}, {}}}
	failed := &record.Record{Seq: 4, PromptID: "b", Status: "http_error", Error: &record.Error{Class: "http", Message: "rate limited\x1b[2J"}}
	for _, tc := range []struct {
		r         *record.Record
		want, not []string
	}{
		{ok, []string{"#1 ", "ttft  120 ms", "e2e  900 ms", "  ~7 tok", "2 stalls"}, []string{"— tok", "http"}},
		{failed, []string{"#5 ", "— tok", "http: rate limited"}, []string{"stall", "\x1b"}},
	} {
		line := progress.Line(tc.r)
		for _, w := range tc.want {
			if !strings.Contains(line, w) {
				t.Errorf("line %q lacks %q", line, w)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(line, n) {
				t.Errorf("line %q has %q", line, n)
			}
		}
	}
}

// The log puts a line naming the phase above the first warmup stream and
// above the first measured one after them, and none between streams of
// one phase.
func TestLogNamesThePhaseWhereItChanges(t *testing.T) {
	t.Parallel()
	var b strings.Builder
	log := progress.Log{W: &b}
	for i, phase := range []string{record.PhaseWarmup, record.PhaseWarmup, record.PhaseMeasure, record.PhaseMeasure} {
		log.Add("  ", &record.Record{Seq: i, Phase: phase, Status: "ok"})
	}
	got := b.String()
	if strings.Count(got, "warmup, excluded from every figure:") != 1 || strings.Count(got, "measured:") != 1 {
		t.Errorf("phase lines:\n%s", got)
	}
	if i, j := strings.Index(got, "measured:"), strings.Index(got, "#3 "); i < 0 || i > j || strings.Index(got, "#2 ") > i {
		t.Errorf("measured: is not between #2 and #3:\n%s", got)
	}
}
