package compare

import (
	"fmt"
	"io"
	"strings"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/sweep"
)

// md is text from a record file as a Markdown cell.
func md(s string) string { return textfmt.MarkdownCell(sanitize.Line(s)) }

// Markdown writes the comparison for a pull request: the runs, a workload
// warning when they differ, the table with deltas, the noise intervals in
// a collapsed block and the gate verdicts.
func Markdown(w io.Writer, c *Comparison) {
	mdRuns(w, c)
	writeMDTable(w, c, c.Sections)
	fmt.Fprintln(w, "\n⚠️ worse by 10% or more (lower is better for latencies, failures and stalls; higher for completions and rates) · \\~ within noise (the 95% bootstrap interval of the difference contains 0)")

	fmt.Fprintf(w, "\n**Clocks** (%s)\n\n", md(MovedRule))
	for _, rd := range c.Readings {
		moved := []string{}
		for _, m := range rd.Clocks {
			moved = append(moved, m.Clock+" "+movedWord(m.Moved))
		}
		fmt.Fprintf(w, "- %s %s: %s — %s\n", Letter(rd.Run), md(rd.Label), strings.Join(moved, ", "), md(rd.Verdict))
	}
	mdNoise(w, c)
	if len(c.Prompts) > 0 {
		fmt.Fprintln(w, "\n<details><summary>Per prompt</summary>")
		for _, p := range c.Prompts {
			fmt.Fprintf(w, "\n**prompt %s**\n\n", md(p.ID))
			writeMDTable(w, c, p.Sections)
		}
		fmt.Fprintln(w, "\n</details>")
	}
	if len(c.Gates) > 0 {
		fmt.Fprintln(w, "\n**Gates**")
		fmt.Fprintln(w)
		for _, g := range c.Gates {
			mark := "✅"
			if g.Tripped {
				mark = "❌"
			}
			fmt.Fprintf(w, "- %s %s `%s`: %s\n", mark, Letter(g.RunIndex), strings.ReplaceAll(g.Expr, "`", "'"), md(g.Message))
		}
	}
	if c.Levels != nil {
		fmt.Fprintln(w)
		sweep.Markdown(w, c.Levels)
	}
}

// mdRuns is the title, the table of runs and the workload warning.
func mdRuns(w io.Writer, c *Comparison) {
	fmt.Fprintf(w, "### drip compare: %d runs, baseline A\n\n", len(c.Runs))
	fmt.Fprintln(w, "| run | file | measured | format | model | target |")
	fmt.Fprintln(w, "|---|---|--:|---|---|---|")
	for i, r := range c.Runs {
		wl := &r.Summary.Workload
		name := Letter(i)
		if i == 0 {
			name += " (baseline)"
		}
		fmt.Fprintf(w, "| %s | %s | %d | %s | %s | %s |\n", name, md(r.Label), wl.Runs, md(wl.Format), md(wl.Model), md(wl.Target))
	}
	for i := range c.Runs {
		if none := NoneCompleted(&c.Runs[i].Summary); none != "" {
			fmt.Fprintf(w, "\n> [!WARNING]\n> **%s: %s**\n", Letter(i), md(none))
		}
	}
	if len(c.Workload) > 0 {
		fmt.Fprintln(w, "\n> [!WARNING]")
		fmt.Fprintln(w, "> **The workloads differ**: a difference below may come from the workload, not the system.")
		for _, d := range c.Workload {
			parts := make([]string, len(d.Values))
			for i, v := range d.Values {
				parts[i] = Letter(i) + ": " + md(v)
			}
			fmt.Fprintf(w, "> - **%s**: %s\n", d.Setting, strings.Join(parts, " · "))
		}
	}
	fmt.Fprintln(w)
}

// mdNoise is the collapsed block of bootstrap intervals (p50 and p95 of
// every distribution).
func mdNoise(w io.Writer, c *Comparison) {
	fmt.Fprintf(w, "\n<details><summary>Noise: %.0f%% bootstrap intervals of the difference from A</summary>\n\n", c.Noise.Confidence*100)
	fmt.Fprintf(w, "%s; %d resamples, seed %d.\n\n", c.Noise.Method, c.Noise.Resamples, c.Noise.Seed)
	fmt.Fprintln(w, "| metric | run | difference |")
	fmt.Fprintln(w, "|---|---|---|")
	for _, n := range noiseLines(c) {
		fmt.Fprintf(w, "| %s | %s | %s |\n", n.metric, n.run, n.verdict)
	}
	fmt.Fprintln(w, "\n</details>")
}

func writeMDTable(w io.Writer, c *Comparison, secs []Section) {
	var head, align strings.Builder
	head.WriteString("| metric |")
	align.WriteString("|---|")
	for i := range c.Runs {
		head.WriteString(" " + Letter(i) + " |")
		align.WriteString("--:|")
		if i > 0 {
			head.WriteString(" Δ " + Letter(i) + " |")
			align.WriteString("--:|")
		}
	}
	fmt.Fprintln(w, head.String())
	fmt.Fprintln(w, align.String())
	for _, sec := range secs {
		var b strings.Builder
		b.WriteString("| **" + sec.Title + "** |")
		for i := range c.Runs {
			if sec.N != nil {
				fmt.Fprintf(&b, " n=%d |", sec.N[i])
			} else {
				b.WriteString(" |")
			}
			if i > 0 {
				b.WriteString(" |")
			}
		}
		fmt.Fprintln(w, b.String())
		for _, r := range sec.Rows {
			b.Reset()
			b.WriteString("| " + md(strings.TrimSpace(r.Label)) + " |")
			for i, v := range r.Values {
				b.WriteString(" " + FormatValue(r, v) + " |")
				if i > 0 {
					b.WriteString(" " + mdDelta(r, r.Deltas[i]) + " |")
				}
			}
			fmt.Fprintln(w, b.String())
		}
	}
}

func mdDelta(r Row, d *Delta) string {
	s := FormatDeltaAbs(r, d)
	if d.Pct != nil {
		s += " (" + FormatDeltaPct(d) + ")"
	}
	if d.Worse {
		s = "**" + s + "** ⚠️"
	}
	if d.WithinNoise {
		s += ` \~`
	}
	return s
}
