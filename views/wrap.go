package views

import (
	"slices"
	"strings"
	"unicode/utf8"

	"charm.land/lipgloss/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
)

// cellStyle is what a cell of wrapped text is, such as plain answer text,
// reasoning, tool arguments or a stall marker.
type cellStyle uint8

const (
	cellAnswer cellStyle = iota
	cellReasoning
	cellTool
	cellStall
	cellStallMid
	cellError
)

// cell is one rune of wrapped text and the columns it takes.
type cell struct {
	r     rune
	w     uint8
	style cellStyle
}

// WrappedText is a stream's text wrapped to a width and kept between
// redraws. Update takes in only the frames that arrived since the last
// call, wrapping them onto the last line, so a redraw costs the new frames
// and the lines on screen, never the whole stream. Plain ASCII is measured
// as one column a byte, and anything else by its display width. Stall
// markers sit where the stall happened ("⏸ 712ms", mid-sentence ones
// emphasised). Reasoning is set apart from the answer. The text is
// sanitised, because it is the server's.
type WrappedText struct {
	width   int
	frames  int // frames of the record taken in
	started bool
	ch      adapters.Channel
	lines   [][]cell // the last line is the one being filled
	stalls  []textStall
	failed  bool // the error line is written
	// marks, when set, are the stalls to mark with their owners (a
	// relay's view of the stream), in place of the record's own.
	marks []hops.Mark
}

// SetMarks marks the stalls with their owners ("⏸ 700ms upstream", drip
// view --relay) in place of the record's own stalls. nil goes back to
// those. New marks wrap the text again.
func (t *WrappedText) SetMarks(m []hops.Mark) {
	if !slices.Equal(m, t.marks) {
		*t = WrappedText{marks: m}
	}
}

// textStall is where a stall marker went.
type textStall struct {
	line  int
	gapMS float64
	mid   bool
}

// Update brings the wrapped text up to date with r at width. A new width
// wraps everything again (a resize, not a frame).
func (t *WrappedText) Update(r *record.Record, width int) {
	if width < 1 {
		width = 1
	}
	if width != t.width || len(r.Frames) < t.frames || t.failed && r.Error == nil {
		*t = WrappedText{width: width, marks: t.marks}
	}
	if len(t.lines) == 0 {
		t.lines = [][]cell{nil}
	}
	stalls, marks := r.Stalls, t.marks
	for ; t.frames < len(r.Frames); t.frames++ {
		f := &r.Frames[t.frames]
		if !f.IsContent() {
			continue
		}
		if t.started && f.Channel != t.ch && t.ch == adapters.ChannelReasoning {
			t.newline()
			t.newline()
		}
		if f.Channel != t.ch || !t.started {
			t.channelLabel(f.Channel)
		}
		t.started, t.ch = true, f.Channel
		for len(stalls) > 0 && stalls[0].Frame < t.frames {
			stalls = stalls[1:]
		}
		switch {
		case marks != nil:
			marks = t.ownedMarkers(marks, f.Text)
		case len(stalls) > 0 && stalls[0].Frame == t.frames:
			t.stallMarker(stalls[0].GapMS, "", stalls[0].MidSentence, f.Text)
		}
		t.write(sanitize.Text(f.Text), styleOf(f.Channel))
	}
	// A failed stream's error closes the text.
	if e := r.Error; e != nil && r.Status != record.StatusCanceled && !t.failed {
		t.failed = true
		msg := "✖ " + sanitize.Line(e.Class)
		if e.Message != "" {
			msg += ": " + sanitize.Line(e.Message)
		}
		if t.started {
			t.newline()
			t.newline()
		}
		t.write(msg, cellError)
	}
}

func styleOf(ch adapters.Channel) cellStyle {
	switch ch {
	case adapters.ChannelReasoning:
		return cellReasoning
	case adapters.ChannelTool:
		return cellTool
	}
	return cellAnswer
}

// channelLabel opens a block of reasoning or tool arguments with its
// name, in the timeline's glyph. Colour alone would not do, since without
// colour reasoning reads as the answer.
func (t *WrappedText) channelLabel(ch adapters.Channel) {
	label := map[adapters.Channel]string{adapters.ChannelReasoning: "┊" + nbsp + "reasoning: ", adapters.ChannelTool: "┼" + nbsp + "tool: "}[ch]
	if label == "" {
		return
	}
	if t.lineWidth() > 0 {
		t.write(" ", styleOf(ch))
	}
	t.write(label, styleOf(ch))
}

// ownedMarkers writes the marks of the frame being taken in, before its
// text, and returns the marks after it.
func (t *WrappedText) ownedMarkers(marks []hops.Mark, next string) []hops.Mark {
	for len(marks) > 0 && marks[0].Frame <= t.frames {
		if m := marks[0]; m.Frame == t.frames {
			t.stallMarker(m.GapMS, m.Owner, m.Mid, next)
		}
		marks = marks[1:]
	}
	return marks
}

// stallMarker writes "⏸ 712ms" before the frame that ended the stall, with
// its owner when known ("⏸ 712ms upstream"). It is kept on one line when
// the text wraps.
func (t *WrappedText) stallMarker(gapMS float64, owner string, mid bool, next string) {
	style := cellStall
	if mid {
		style = cellStallMid
	}
	t.write(" ", cellAnswer)
	gap := strings.ReplaceAll(textfmt.MS(gapMS), " ", nbsp)
	label := "⏸" + nbsp + gap
	if utf8.RuneCountInString(label) > t.width { // the narrowest texts keep the unit
		label = "⏸" + gap
	}
	if owner != "" && utf8.RuneCountInString(label)+1+len(owner) <= t.width { // the narrowest texts keep the gap
		label += nbsp + owner
	}
	marker := []rune(label)
	if t.lineWidth()+len(marker) > t.width {
		t.newline()
	}
	t.stalls = append(t.stalls, textStall{line: len(t.lines) - 1, gapMS: gapMS, mid: mid})
	for _, r := range marker {
		t.put(cell{r: r, w: 1, style: style})
	}
	if !strings.HasPrefix(next, " ") && !strings.HasPrefix(next, "\n") {
		t.write(" ", cellAnswer)
	}
}

// write appends s, breaking lines at newlines and wrapping at the last
// space that fits (or mid-word when a word is wider than the line).
func (t *WrappedText) write(s string, style cellStyle) {
	for i := 0; i < len(s); {
		var r rune
		w := 1
		if c := s[i]; c < utf8.RuneSelf {
			r = rune(c)
			i++
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(s[i:])
			w = ansi.StringWidth(s[i : i+n])
			i += n
		}
		switch r {
		case '\n':
			t.newline()
			continue
		case '\t':
			for range 4 {
				t.add(cell{r: ' ', w: 1, style: style})
			}
			continue
		}
		t.add(cell{r: r, w: uint8(w), style: style})
	}
}

// add appends a cell, wrapping first when it would not fit.
func (t *WrappedText) add(c cell) {
	if t.lineWidth()+int(c.w) > t.width && c.r != ' ' {
		t.wrap()
	}
	if c.r == ' ' && t.lineWidth()+1 > t.width {
		t.newline() // a space at the edge is the break itself
		return
	}
	t.put(c)
}

func (t *WrappedText) put(c cell) {
	n := len(t.lines) - 1
	t.lines[n] = append(t.lines[n], c)
}

// wrap moves the last line's final word to a new line, or breaks the line
// where it is when the word fills it.
func (t *WrappedText) wrap() {
	n := len(t.lines) - 1
	line := t.lines[n]
	cut := -1
	for i := len(line) - 1; i >= 0; i-- {
		if line[i].r == ' ' {
			cut = i
			break
		}
	}
	if cut < 0 {
		t.newline()
		return
	}
	word := append([]cell(nil), line[cut+1:]...)
	t.lines[n] = line[:cut]
	t.lines = append(t.lines, word)
}

func (t *WrappedText) newline() { t.lines = append(t.lines, nil) }

func (t *WrappedText) lineWidth() int {
	w := 0
	for _, c := range t.lines[len(t.lines)-1] {
		w += int(c.w)
	}
	return w
}

// Lines is how many lines the text takes.
func (t *WrappedText) Lines() int { return len(t.lines) }

// Empty reports that no content has arrived.
func (t *WrappedText) Empty() bool { return !t.started }

const noText = "(no text yet)"

// Render draws lines [from, from+height) of the text, styled, each padded
// to the width.
func (t *WrappedText) Render(from, height int, st *Styles) string {
	styles := [...]*lipgloss.Style{&st.Value, &st.Reasoning, &st.Tool, &st.Stall, &st.StallMid, &st.Error}
	if !t.started && !t.failed && height > 0 {
		return textfmt.Fit(st.Dim.Render(noText), t.width, height)
	}
	from = max(0, min(from, len(t.lines)))
	end := min(len(t.lines), from+height)
	out := make([]string, 0, height)
	var b strings.Builder
	for _, line := range t.lines[from:end] {
		b.Reset()
		w := 0
		for i := 0; i < len(line); {
			j := i
			for j < len(line) && line[j].style == line[i].style {
				j++
			}
			var seg strings.Builder
			for _, c := range line[i:j] {
				seg.WriteRune(c.r)
				w += int(c.w)
			}
			b.WriteString(styles[line[i].style].Render(seg.String()))
			i = j
		}
		if w < t.width {
			b.WriteString(strings.Repeat(" ", t.width-w))
		}
		out = append(out, b.String())
	}
	for len(out) < height {
		out = append(out, strings.Repeat(" ", t.width))
	}
	return strings.Join(out, "\n")
}

// WorstStallLine is the line of the stall that matters most — the
// longest mid-sentence one, else the longest — or -1 without a stall.
func (t *WrappedText) WorstStallLine() int {
	best := -1
	var bs textStall
	for _, s := range t.stalls {
		if best < 0 || (s.mid && !bs.mid) || (s.mid == bs.mid && s.gapMS > bs.gapMS) {
			best, bs = s.line, s
		}
	}
	return best
}

// Tail draws the last height lines, the text as it arrives.
func (t *WrappedText) Tail(height int, st *Styles) string {
	return t.Render(len(t.lines)-height, height, st)
}
