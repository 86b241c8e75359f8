package sweep

import (
	"bytes"
	"strings"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/exp/golden"

	"github.com/driplab/drip/stats"
)

// syntheticResult is a sweep of concurrency 2,4,8,16 over 4 slots, from
// synthetic records, stopped after 16.
func syntheticResult(t *testing.T) *Result {
	same := []float64{180, 181, 182, 183, 180, 181, 182, 183}
	queued := []float64{180, 181, 182, 183, 700, 701, 702, 703}
	levels := []Level{synthLevel(t, 2, 2, same...), synthLevel(t, 4, 4, same...), synthLevel(t, 8, 4, queued...), synthLevel(t, 16, 4, queued...)}
	r := &Result{Kind: KindConcurrency, Levels: levels, Planned: []float64{2, 4, 8, 16, 32}, KneeRule: KneeRule, Knee: FindKnee(levels)}
	g, _ := stats.ParseGate("ttft.p95 > 500ms")
	r.StopWhen = []string{g.Expr}
	why := stopReason([]stats.Gate{g}, &levels[3])
	r.Stopped = &why
	return r
}

func TestTableGolden(t *testing.T) {
	t.Parallel()
	r := syntheticResult(t)
	t.Run("text", func(t *testing.T) {
		var b bytes.Buffer
		Text(&b, r)
		golden.RequireEqual(t, b.Bytes())
	})
	t.Run("markdown", func(t *testing.T) {
		var b bytes.Buffer
		Markdown(&b, r)
		golden.RequireEqual(t, b.Bytes())
	})
}

// TestTableMarksTheKnee checks what the goldens show: the knee's row is
// marked and the verdict says why.
func TestTableMarksTheKnee(t *testing.T) {
	t.Parallel()
	r := syntheticResult(t)
	var b bytes.Buffer
	Text(&b, r)
	for _, line := range strings.Split(b.String(), "\n") {
		if strings.Contains(line, "◀ knee") && !strings.HasPrefix(strings.TrimSpace(line), "8 ") {
			t.Errorf("knee mark on %q; want the concurrency 8 row", line)
		}
	}
	words := strings.Join(strings.Fields(b.String()), " ") // the prose under the table wraps at 80 columns
	if !strings.Contains(words, "knee: at concurrency 8 ttft p95 rose") || !strings.Contains(words, "stopped: --stop-when 'ttft.p95 > 500ms' held at concurrency 16") {
		t.Errorf("report lacks the knee's verdict or the stop:\n%s", b.String())
	}
	fitsWidth(t, b.String())
}

// A rate sweep's table has two more columns (goodput, lag) and wide
// figures; it still fits 80 columns, its columns one apart.
func TestRateTableFitsEightyColumns(t *testing.T) {
	t.Parallel()
	r := syntheticResult(t)
	r.Kind = KindRate
	for i := range r.Levels {
		l := &r.Levels[i]
		l.Kind, l.Level = KindRate, l.Level*1.25
		l.Streams, l.Failed = 12000, 1200
		g, lag := 99.5, 1234.5
		l.Goodput, l.OpenLoop = &g, &stats.OpenLoop{ScheduleLag: stats.Dist{P99: &lag}}
	}
	r.Knee = &Knee{Level: r.Levels[2].Level, Reason: "at rate 10 ttft p95 rose"}
	var b bytes.Buffer
	Text(&b, r)
	if !strings.Contains(b.String(), "goodput") || !strings.Contains(b.String(), "1.23 s") || !strings.Contains(b.String(), "◀ knee") {
		t.Errorf("rate table lacks goodput, the lag or the knee:\n%s", b.String())
	}
	fitsWidth(t, b.String())
}

// A wide rune takes two cells: the columns stay aligned past it.
func TestTableAlignsPastAWideRune(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	writeCells(&b, [][]string{{"level", "ttft"}, {"漢字", "180"}, {"8", "—"}}, []string{"", "", "◀ knee"})
	want := "  level  ttft\n   漢字   180\n      8     —  ◀ knee\n"
	if b.String() != want {
		t.Errorf("got\n%s\nwant\n%s", b.String(), want)
	}
}

// fitsWidth fails for each line of a text report over 80 columns.
func fitsWidth(t *testing.T, out string) {
	t.Helper()
	for _, line := range strings.Split(out, "\n") {
		if n := ansi.StringWidth(line); n > 80 {
			t.Errorf("a line is %d columns wide, over 80: %q", n, line)
		}
	}
	if t.Failed() {
		t.Log("\n" + out)
	}
}
