package views

import (
	"fmt"
	"strings"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/textfmt"
)

// hopsLabelWidth is the hops panel's label column.
const hopsLabelWidth = 9

// HopsPanel draws a stream beside a relay's record of it (drip view
// --relay): its TTFT and headers split between the upstream and the path
// after the relay, its stalls by owner, and the path's delay per frame.
// Without h it says no relay exchange matched the stream.
func HopsPanel(h *hops.Stream, width, height int, st *Styles) string {
	if h == nil {
		return Note("no exchange in the relay's file matches this stream (by its X-Drip-Stream id or request body)", width, height, st)
	}
	return textfmt.Fit(strings.Join(hopsLines(h, width, st), "\n"), width, height)
}

// hopsLines are the hops panel's lines at width.
func hopsLines(h *hops.Stream, width int, st *Styles) []string {
	rows := [][2]string{
		{"ttft", hopsSplit(h.TTFT)},
		{"headers", fmt.Sprintf("%s at the client · %s at the relay", textfmt.OptMS(h.Headers.ClientMS), textfmt.OptMS(h.Headers.UpstreamMS))},
		{"stalls", ownedStalls(h)},
		{"path", fmt.Sprintf("adds %s p50 · %s p99 · %s max a frame · %s", textfmt.OptMS(h.Delay.P50), textfmt.OptMS(h.Delay.P99), textfmt.OptMS(h.Delay.Max), burstsOf(h.Bursts))},
	}
	if h.DiffersAt != nil {
		rows = append(rows, [2]string{"aligned", fmt.Sprintf("%d of %d frames: the content parts at byte %d", h.Aligned, h.Frames, *h.DiffersAt)})
	}
	var lines []string
	for _, r := range rows {
		lines = append(lines, hopsRow(r[0], r[1], width, st)...)
	}
	return lines
}

// HopsHeight is the rows HopsPanel draws at width.
func HopsHeight(h *hops.Stream, width int) int {
	if h == nil {
		return 2
	}
	return len(hopsLines(h, width, &Styles{}))
}

// hopsRow is a label and its value, the value wrapped under itself when
// it does not fit; below the label's width the label goes.
func hopsRow(label, value string, width int, st *Styles) []string {
	indent := hopsLabelWidth
	if width < 2*hopsLabelWidth {
		indent = 0
	}
	lines := textfmt.Wrap(value, max(width-indent, 1)) // keeps a figure with its unit
	for i, l := range lines {
		lead := strings.Repeat(" ", indent)
		if i == 0 && indent > 0 {
			lead = st.Label.Render(textfmt.PadRight(label, indent))
		}
		lines[i] = lead + st.Value.Render(l)
	}
	return lines
}

func hopsSplit(s hops.Split) string {
	if s.PathMS == nil {
		return textfmt.OptMS(s.ClientMS) + " at the client (the relay has none)"
	}
	return fmt.Sprintf("%s = %s upstream + %s path", textfmt.MS(*s.ClientMS), textfmt.MS(*s.UpstreamMS), textfmt.MS(*s.PathMS))
}

// ownedStalls lists the stalls with their owners, as the text marks them,
// and counts the freezes by owner.
func ownedStalls(h *hops.Stream) string {
	var parts []string
	freezes := map[string]int{}
	for _, s := range h.Stalls {
		if s.Kind == hops.KindFreeze {
			freezes[s.Owner]++
			continue
		}
		parts = append(parts, "⏸ "+s.Label(textfmt.MS))
	}
	if len(parts) == 0 {
		parts = append(parts, "no stall at the client")
	}
	var fz []string
	for _, o := range []string{hops.OwnerUpstream, hops.OwnerPath, hops.OwnerBoth, hops.OwnerRelay} {
		if n := freezes[o]; n > 0 {
			fz = append(fz, fmt.Sprintf("%d %s", n, o))
		}
	}
	if len(fz) > 0 {
		parts = append(parts, "freezes: "+strings.Join(fz, ", "))
	}
	return strings.Join(parts, " · ")
}

func burstsOf(n int) string {
	if n == 1 {
		return "1 burst it made"
	}
	return fmt.Sprintf("%d bursts it made", n)
}
