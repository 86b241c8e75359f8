package hops

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
)

// JSON writes the report as one JSON object.
func (r *Report) JSON(w io.Writer) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(r)
}

// rows are the per-stream lines. Each holds TTFT and headers split, the
// path's delay per frame, and each stall with its owner.
func (r *Report) rows() [][]string {
	out := [][]string{{"stream", "ttft client", "= upstream", "+ path", "headers client/relay", "path delay p50/p99/max", "stalls (owner: upstream + path)"}}
	for _, s := range r.Streams {
		var stalls []string
		for _, st := range s.Stalls {
			stalls = append(stalls, fmt.Sprintf("%s %s %s: %s%s + %s", st.Kind, textfmt.MS(st.GapMS), st.Owner, textfmt.MS(st.UpstreamMS), relayStalls(st), textfmt.MS(st.PathMS)))
		}
		if len(stalls) == 0 {
			stalls = []string{"none"}
		}
		label := fmt.Sprintf("%d (%s)", s.Seq, s.MatchedBy)
		if len(r.Relays) > 1 { // a stream has a row per relay that carried it
			label = fmt.Sprintf("%d (%s, %s)", s.Seq, s.MatchedBy, s.RelayFile)
		}
		out = append(out, []string{
			label,
			ms(s.TTFT.ClientMS), ms(s.TTFT.UpstreamMS), ms(s.TTFT.PathMS),
			ms(s.Headers.ClientMS) + " / " + ms(s.Headers.UpstreamMS),
			ms(s.Delay.P50) + " / " + ms(s.Delay.P99) + " / " + ms(s.Delay.Max),
			strings.Join(stalls, "; "),
		})
	}
	return out
}

// ms is a stream's time as every report prints one, or — when it has none.
func ms(v *float64) string { return textfmt.OptMS(v) }

// relayStalls lists the relay's stalls inside a client's, "(700 ms, 300 ms)"
// when there are more than one. Past maxRelayStalls it names the first few
// and counts the rest, because a hostile pair of records can put 100,000
// in one silence and the line must stay readable. The JSON keeps them all.
func relayStalls(st Stall) string {
	if len(st.Upstream) < 2 {
		return ""
	}
	shown := st.Upstream[:min(len(st.Upstream), maxRelayStalls)]
	gaps := make([]string, len(shown))
	for i, u := range shown {
		gaps[i] = textfmt.MS(u.GapMS)
	}
	if more := len(st.Upstream) - len(shown); more > 0 {
		gaps = append(gaps, fmt.Sprintf("and %d more", more))
	}
	return " (" + strings.Join(gaps, ", ") + ")"
}

// maxRelayStalls is how many of the relay's stalls inside one client stall
// the text report names.
const maxRelayStalls = 5

// Text writes the report for a terminal. The verdict comes first, then a
// line per stream and the pooled figures.
func (r *Report) Text(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "hops: %s (client) beside %s (relay)\n", r.Client, strings.Join(r.Relays, ", "))
	fmt.Fprintf(&b, "verdict   %s [%s]\n          %s\n\n", r.Verdict.Text, r.Verdict.Rule, r.Verdict.Evidence)
	rows := r.rows()
	width := make([]int, len(rows[0]))
	for _, rw := range rows {
		for i, c := range rw[:len(rw)-1] {
			width[i] = max(width[i], textfmt.Width(c))
		}
	}
	for _, rw := range rows {
		for i, c := range rw[:len(rw)-1] {
			b.WriteString(textfmt.PadRight(c, width[i]) + "  ")
		}
		b.WriteString(rw[len(rw)-1] + "\n")
	}
	r.pooledText(&b)
	_, err := io.WriteString(w, b.String())
	return err
}

func (r *Report) pooledText(b *strings.Builder) {
	p := r.Pooled
	fmt.Fprintf(b, "\npooled over %s", stats.Count(p.Streams, "stream"))
	if r.Unmatched > 0 {
		fmt.Fprintf(b, " (%d of the client's not matched)", r.Unmatched)
	}
	fmt.Fprintf(b, ":\n  ttft upstream   p50 %s  max %s\n  ttft path       p50 %s  max %s\n", textfmt.OptMS(p.TTFTUpstream.P50), textfmt.OptMS(p.TTFTUpstream.Max), textfmt.OptMS(p.TTFTPath.P50), textfmt.OptMS(p.TTFTPath.Max))
	for _, h := range p.TTFTHops {
		fmt.Fprintf(b, "  ttft %s → %s  p50 %s  max %s (n=%d)\n", h.From, h.To, textfmt.OptMS(h.TTFT.P50), textfmt.OptMS(h.TTFT.Max), h.TTFT.N)
	}
	fmt.Fprintf(b, "  path delay      p50 %s  p99 %s  max %s per frame (n=%d, relative to its least)\n", textfmt.OptMS(p.Delay.P50), textfmt.OptMS(p.Delay.P99), textfmt.OptMS(p.Delay.Max), p.Delay.N)
	relay := ""
	if n := p.Stalls[OwnerRelay]; n > 0 {
		relay = fmt.Sprintf(" (and %d the relay's own, %s)", n, textfmt.MS(p.RelayMS))
	}
	fmt.Fprintf(b, "  stalls          %d upstream, %d path, %d both%s; %s upstream, %s path; %s; %s the path made\n",
		p.Stalls[OwnerUpstream], p.Stalls[OwnerPath], p.Stalls[OwnerBoth], relay, textfmt.MS(p.UpstreamMS), textfmt.MS(p.PathMS),
		stats.Count(p.Freezes, "freeze"), stats.Count(p.Bursts, "burst"))
	for _, a := range r.Ambiguous {
		fmt.Fprintf(b, "  id %s, paired with none\n", a.says())
	}
	for _, s := range r.Streams {
		if s.DiffersAt != nil {
			fmt.Fprintf(b, "  stream %d: its content parts from the relay's at byte %d: %d of %d frames aligned\n", s.Seq, *s.DiffersAt, s.Aligned, s.Frames)
		}
	}
}

// Markdown writes the report as Markdown, the verdict and then a table.
func (r *Report) Markdown(w io.Writer) error {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s** (`%s`): %s\n\n%s\n\n", "Verdict", r.Verdict.Rule, r.Verdict.Text, r.Verdict.Evidence)
	for i, rw := range r.rows() {
		cells := make([]string, len(rw))
		for j, c := range rw {
			cells[j] = textfmt.MarkdownCell(c) // a relay file's name may hold a |
		}
		b.WriteString("| " + strings.Join(cells, " | ") + " |\n")
		if i == 0 {
			b.WriteString(strings.Repeat("|---", len(rw)) + "|\n")
		}
	}
	for i, a := range r.Ambiguous {
		if i == 0 {
			b.WriteString("\n")
		}
		b.WriteString("- id " + textfmt.MarkdownCell(a.says()) + ", paired with none\n")
	}
	_, err := io.WriteString(w, b.String())
	return err
}
