package views

import (
	"fmt"
	"strings"

	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
)

// Header renders the status line (run, status with its live clock, note)
// and, given a second line, what is being measured: target, format, model.
//
// A status line too wide for width loses the note's last parts first
// (hints the help bar repeats, such as "n: next scenario"), then the
// status's last parts (a buffered stream's end-to-end rate, a frame
// count), then the end of an error's message (the text panel shows it
// whole), so the note's first part — the scenario, what the screen is
// showing — stays.
func Header(s *Stream, note string, width, height int, st *Styles) string {
	status, stStyle := statusText(s, st)
	var parts []string
	if note != "" {
		parts = strings.Split(sanitize.Line(note), " · ")
	}
	build := func(status string, parts []string) string {
		line := st.Title.Render("drip") + st.Dim.Render(fmt.Sprintf(" · run %d · ", s.Run)) + stStyle.Render(status)
		if len(parts) > 0 {
			line += st.Dim.Render(" · ") + st.Value.Render(strings.Join(parts, " · "))
		}
		return line
	}
	line := build(status, parts)
	for textfmt.Width(line) > width && len(parts) > 1 {
		parts = parts[:len(parts)-1]
		line = build(status, parts)
	}
	for textfmt.Width(line) > width && len(parts) > 0 {
		i := strings.LastIndex(status, " · ")
		if i < 0 {
			break
		}
		status = status[:i]
		line = build(status, parts)
	}
	if i := strings.Index(status, " — "); textfmt.Width(line) > width && i >= 0 {
		if room := width - textfmt.Width(build("", parts)); room > textfmt.Width(status[:i])+4 {
			line = build(textfmt.CutWords(status, room), parts)
		}
	}
	lines := []string{line}
	if height >= 2 {
		r := s.Record
		lines = append(lines, whatLine(r.Target, width, st, whatParts(r.Format, r.Model, "", st)...))
	}
	return textfmt.Fit(strings.Join(lines, "\n"), width, min(height, 2))
}

// statusText says where the stream is, with a live clock while it runs.
func statusText(s *Stream, st *Styles) (string, lipgloss.Style) {
	r := s.Record
	switch s.Phase {
	case PhaseIdle:
		return "starting", st.Live
	case PhaseConnecting:
		// Not "connecting": behind a buffering proxy the connection is
		// up for seconds while the proxy holds the response.
		return "waiting for headers " + textfmt.MS(s.ElapsedMS), st.Live
	case PhaseWaiting:
		wait := "waiting for first token " + textfmt.MS(s.ElapsedMS)
		if r.FirstByteMS != nil {
			wait += " · first byte " + textfmt.MS(*r.FirstByteMS)
		}
		return wait, st.Live
	case PhaseStreaming:
		if gap, ok := LiveStall(s); ok {
			return fmt.Sprintf("stalled ⏸ %s… · %d frames", textfmt.MS(gap), r.ContentFrames), st.Live
		}
		return fmt.Sprintf("streaming %s · %d frames", textfmt.MS(s.ElapsedMS), r.ContentFrames), st.Live
	}
	switch r.Status {
	case record.StatusComplete:
		if r.Buffered {
			return "done " + textfmt.MS(r.DurationMS) + " · buffered" + e2eRate(r), st.Done
		}
		return "done " + textfmt.MS(r.DurationMS), st.Done
	case record.StatusIncomplete:
		why := "no end marker"
		if r.Truncated {
			why = "cut inside a frame"
		}
		return fmt.Sprintf("incomplete (%s) %s", why, textfmt.MS(r.DurationMS)), st.Failed
	case record.StatusCanceled:
		return "canceled " + textfmt.MS(r.DurationMS), st.Dim
	}
	msg := "failed"
	if r.Error != nil {
		msg += ": " + sanitize.Line(r.Error.Class)
		if r.Error.Message != "" {
			msg += " — " + sanitize.Line(r.Error.Message)
		}
	}
	return msg, st.Failed
}

// e2eRate is a buffered stream's rate end to end (its tokens over the time
// to its last content), the rate that still means something when the
// tokens came in one burst.
func e2eRate(r *record.Record) string {
	if r.E2EMS == nil || *r.E2EMS <= 0 || r.OutputTokens == 0 {
		return ""
	}
	return fmt.Sprintf(" · %s tok/s end to end", textfmt.FormatFloat(float64(r.OutputTokens)/(*r.E2EMS/1000)))
}
