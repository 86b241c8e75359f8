package views

import (
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/sanitize"
)

// nbsp keeps a stall marker on one line when the text wraps.
const nbsp = "\u00a0"

// Text renders the streamed text wrapped to width, with a marker at the
// exact place each stall happened ("⏸ 712ms"), mid-sentence stalls
// emphasised, reasoning set apart from the answer, and the error of a
// failed stream at the end. The text is sanitised: it is the server's.
func Text(r *probe.Record, width int, st *Styles) string {
	if width < 1 {
		return ""
	}
	stallAt := make(map[int]probe.Stall, len(r.Stalls))
	for _, s := range r.Stalls {
		stallAt[s.Frame] = s
	}
	var (
		b       strings.Builder
		seg     strings.Builder
		segCh   adapters.Channel
		started bool
	)
	flush := func() {
		if seg.Len() == 0 {
			return
		}
		s := strings.ReplaceAll(sanitize.Text(seg.String()), "\t", "    ")
		style := st.Value
		switch segCh {
		case adapters.ChannelReasoning:
			style = st.Reasoning.Italic(true)
		case adapters.ChannelTool:
			style = st.Tool
		}
		// Style line by line so a wrapped or scrolled line keeps its style.
		lines := strings.Split(s, "\n")
		for i, l := range lines {
			if l != "" {
				lines[i] = style.Render(l)
			}
		}
		b.WriteString(strings.Join(lines, "\n"))
		seg.Reset()
	}
	for i := range r.Frames {
		f := &r.Frames[i]
		if !f.IsContent() {
			continue
		}
		ch := f.Channel
		if started && ch != segCh {
			flush()
			if segCh == adapters.ChannelReasoning {
				b.WriteString("\n\n")
			}
		}
		segCh, started = ch, true
		if s, ok := stallAt[i]; ok {
			flush()
			style := st.Stall
			if s.MidSentence {
				style = st.StallMid
			}
			b.WriteString(" " + style.Render("⏸"+nbsp+fmtMS(s.GapMS)))
			if !strings.HasPrefix(f.Text, " ") && !strings.HasPrefix(f.Text, "\n") {
				b.WriteString(" ")
			}
		}
		seg.WriteString(f.Text)
	}
	flush()
	if !started {
		b.WriteString(st.Dim.Render("(no text yet)"))
	}
	if e := r.Error; e != nil && r.Status != probe.StatusCanceled {
		msg := "✖ " + sanitize.Line(e.Class)
		if e.Message != "" {
			msg += ": " + sanitize.Line(e.Message)
		}
		b.WriteString("\n\n" + st.Error.Render(msg))
	}
	return lipgloss.Wrap(b.String(), width, "")
}
