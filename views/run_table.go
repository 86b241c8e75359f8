package views

import (
	"fmt"
	"strings"

	"charm.land/bubbles/v2/table"
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Titles of the stream table's columns.
const (
	ColSeq    = "#"
	ColPrompt = "prompt"
	ColStatus = "status"
	ColTTFT   = "ttft"
	ColGapP99 = "gap p99"
	ColStalls = "stalls"
	ColTokens = "tokens"
	ColE2E    = "e2e"
)

// StreamColumns are the stream table's columns for a table width cells
// wide (bubbles table; each cell takes one more cell of padding): e2e is
// added when there is room, and stalls, gap p99 and ttft dropped, in that
// order, when there is not. The prompt column takes what is left.
func StreamColumns(width int) []table.Column {
	fixed := []table.Column{
		{Title: ColSeq, Width: 6}, {Title: ColStatus, Width: 10}, {Title: ColTTFT, Width: 7},
		{Title: ColGapP99, Width: 7}, {Title: ColStalls, Width: 6}, {Title: ColTokens, Width: 6},
	}
	const minPrompt, maxPrompt = 6, 24
	used := func(cols []table.Column) int {
		n := minPrompt + 1
		for _, c := range cols {
			n += c.Width + 1
		}
		return n
	}
	for _, drop := range []string{ColStalls, ColGapP99, ColTTFT} {
		if used(fixed) <= width {
			break
		}
		for i, c := range fixed {
			if c.Title == drop {
				fixed = append(fixed[:i], fixed[i+1:]...)
				break
			}
		}
	}
	if used(fixed)+8 <= width && len(fixed) == 6 {
		fixed = append(fixed, table.Column{Title: ColE2E, Width: 7})
	}
	prompt := min(maxPrompt, max(minPrompt, width-used(fixed)+minPrompt))
	cols := []table.Column{fixed[0], {Title: ColPrompt, Width: prompt}}
	return append(cols, fixed[1:]...)
}

// StreamTableStyles styles the stream table: a cell of padding after each
// column, the selected row in the focused title's style (reverse video
// without colour).
func StreamTableStyles(st *Styles) table.Styles {
	sel := st.TitleFocused
	if !st.Color {
		sel = lipgloss.NewStyle().Reverse(true)
	}
	return table.Styles{
		Header:   st.Label.Bold(true).PaddingRight(1),
		Cell:     lipgloss.NewStyle().PaddingRight(1),
		Selected: sel,
	}
}

// StreamRow is a stream's row for cols. A stream still running (phase
// before PhaseDone) shows its live figures, derived from its frames so far.
func StreamRow(r *record.Record, phase Phase, cols []table.Column) table.Row {
	row := make(table.Row, len(cols))
	for i, c := range cols {
		switch c.Title {
		case ColSeq:
			row[i] = RunLabel(r.Seq+1, r)
		case ColPrompt:
			row[i] = sanitize.Line(r.PromptID)
		case ColStatus:
			row[i] = StreamStatus(r, phase)
		case ColTTFT:
			row[i] = textfmt.OptMS(r.TTFTMS)
		case ColGapP99:
			row[i] = textfmt.OptMS(stats.NewDist(r.Gaps()).P99)
		case ColStalls:
			row[i] = fmt.Sprint(len(r.Stalls))
		case ColTokens:
			row[i] = fmt.Sprint(r.OutputTokens)
			if !stats.HasTokenCount(r) { // nothing to count yet, as the clocks say: not "≈0"
				row[i] = "—"
			} else if r.TokensSource == "approx" {
				row[i] = "≈" + row[i]
			}
		case ColE2E:
			row[i] = textfmt.OptMS(r.E2EMS)
		}
	}
	return row
}

// StreamStatus is a stream's status in a word: where a running stream is,
// or how a finished one ended (a failure by its class).
func StreamStatus(r *record.Record, phase Phase) string {
	switch phase {
	case PhaseIdle, PhaseConnecting:
		return "no headers" // as the stream screen's "waiting for headers"
	case PhaseWaiting:
		return "waiting"
	case PhaseStreaming:
		return "streaming"
	}
	switch {
	case r.Status == record.StatusFailed && r.Error != nil:
		return sanitize.Line(r.Error.Class)
	case r.Status == record.StatusComplete && r.Buffered:
		return "buffered"
	}
	return r.Status
}

// StreamCaption describes a stream in a line: number, prompt, status and
// clocks, stalls last.
func StreamCaption(r *record.Record, phase Phase, st *Styles) string {
	num := fmt.Sprintf("#%d", r.Seq+1)
	if r.Phase == record.PhaseWarmup {
		num += " (warmup)"
	}
	parts := []string{st.Value.Render(num)}
	if r.PromptID != "" {
		parts = append(parts, "prompt "+sanitize.Line(r.PromptID))
	}
	status := StreamStatus(r, phase)
	if r.Error != nil && phase == PhaseDone && r.Error.Message != "" {
		status += ": " + sanitize.Line(r.Error.Message)
	}
	parts = append(parts, status)
	parts = append(parts, clockWords(r)...)
	if n := len(r.Stalls); n > 0 {
		mid := 0
		for _, s := range r.Stalls {
			if s.MidSentence {
				mid++
			}
		}
		noun := "stalls"
		if n == 1 {
			noun = "stall"
		}
		parts = append(parts, st.StallMid.Render(fmt.Sprintf("%d %s (%d mid-sentence)", n, noun, mid)))
	}
	return strings.Join(parts, st.Dim.Render(" · "))
}

// Buckets counts values into the histograms' log buckets as they come, so
// a run's histogram costs the same at its millionth value as at its first.
type Buckets struct {
	counts []int
	n      int
}

// Add counts one value.
func (b *Buckets) Add(v float64) {
	if b.counts == nil {
		b.counts = make([]int, stats.GapBuckets)
	}
	b.counts[stats.GapBucket(v)]++
	b.n++
}

// N is the number of values counted.
func (b *Buckets) N() int { return b.n }

// Histogram renders counted values over the gap histogram's log buckets:
// every bucket from the smallest value's to the largest's while they fit,
// then the non-empty ones, then the fullest and the largest. Buckets
// wholly at or above stallMS are drawn as stalls (+Inf: none). empty is
// shown before the first value.
func Histogram(b *Buckets, stallMS float64, empty string, width, height int, st *Styles) string {
	if width <= 0 || height <= 0 {
		return ""
	}
	if b.n == 0 {
		return textfmt.Fit(st.Dim.Render(empty), width, height)
	}
	lo, hi, most := len(b.counts), -1, 0
	for i, n := range b.counts {
		if n > 0 {
			lo, hi, most = min(lo, i), max(hi, i), max(most, n)
		}
	}
	return textfmt.Fit(strings.Join(barLines(histRows(b.counts, lo, hi, most, height), b.counts, stallMS, width, st), "\n"), width, height)
}

// clockWords are a stream's clocks in words, as its one-line captions
// give them: TTFT and end to end where known, and its content frames.
func clockWords(r *record.Record) []string {
	var w []string
	if r.TTFTMS != nil {
		w = append(w, "ttft "+textfmt.MS(*r.TTFTMS))
	}
	if r.E2EMS != nil {
		w = append(w, "e2e "+textfmt.MS(*r.E2EMS))
	}
	return append(w, fmt.Sprintf("%d frames", r.ContentFrames))
}
