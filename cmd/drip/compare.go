package main

import (
	"io"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/tui"
)

func newCompareCmd() *cobra.Command {
	var f compareFlags
	cmd := &cobra.Command{
		Use:     "compare A.jsonl B.jsonl [C.jsonl …] | compare --by KEY FILE.jsonl…",
		Short:   "Put recorded runs side by side, with deltas against the first",
		Long:    compareLong,
		Example: compareExample,
		Args:    cobra.MinimumNArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runCompare(cmd, args, &f) },
	}
	fs := cmd.Flags()
	fs.StringArrayVar(&f.labels, "label", nil, "the name a run is shown under, one per file in their order (repeatable; default: the file names); not drip run's record label k=v: group by that with --by KEY")
	fs.StringVar(&f.by, "by", "", "compare groups of records by this field or record label (host, a key of drip run's --label k=v, prompt_id, …) instead of by file")
	fs.BoolVar(&f.noTUI, "no-tui", false, "print the text table even on a terminal")
	fs.BoolVar(&f.asJSON, "json", false, "print each run's summary with its deltas as one JSON object")
	fs.BoolVar(&f.markdown, "markdown", false, "print the comparison as Markdown, to paste into a pull request")
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "exit 1 when the condition holds for a run, e.g. 'ttft.p95 > +10%', 'gap.p99 > +20ms', 'failed > 0' (repeatable)")
	registerHTML(fs, &f.html)
	registerForce(fs, &f.force)
	return cmd
}

// compareFlags are drip compare's flags.
type compareFlags struct {
	labels, failIf []string
	asJSON         bool
	markdown       bool
	noTUI          bool
	by             string
	html           string
	force          bool
}

// runCompare is drip compare. It reads the record files, groups and
// compares their runs, and reports them on the compare screen or printed.
// The exit is 1 when a gate tripped for a run.
func runCompare(cmd *cobra.Command, args []string, f *compareFlags) error {
	if err := pipeline.FirstErr(checkCompare(args, f), pipeline.CheckOutPath("--html", f.html, f.force)); err != nil {
		return err
	}
	gates, err := pipeline.ParseBaselineGates(f.failIf)
	if err != nil {
		return err
	}
	labels := f.labels
	if len(labels) == 0 {
		labels = compare.DefaultLabels(args)
	}
	inputs, err := pipeline.ReadAll(args, labels, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	c, err := compare.New(inputs, compare.Options{By: f.by, Gates: gates})
	if err != nil {
		return usageErr("%v", err)
	}
	if err := writeComparisonHTML(f.html, c); err != nil {
		return err
	}
	out := cmd.OutOrStdout()
	if !useTUI(&outputFlags{noTUI: f.noTUI, json: f.asJSON || f.markdown}) {
		return printComparison(out, c, comparisonFormat(f.asJSON, f.markdown))
	}
	// The compare screen runs until the user quits. Then the comparison is
	// printed as the headless report does, so its figures stay in the
	// scrollback with the gate verdicts the screen does not show.
	err = tui.RunCompare(cmd.Context(), c, tui.Config{Color: os.Getenv("NO_COLOR") == ""})
	if err := screenEnded(cmd.Context(), "compare screen", err); err != nil {
		return err
	}
	return printComparison(out, c, compare.FormatText)
}

// checkCompare refuses drip compare's flags that do not go together, as a
// usage error naming them.
func checkCompare(paths []string, f *compareFlags) error {
	for _, l := range f.labels {
		// drip run's --label k=v tags records, but here it names a run. This
		// check comes first, since a k=v is no run name, however many are given.
		if key, _, ok := strings.Cut(l, "="); ok {
			return usageErr("--label %q: in compare, --label names a run (e.g. --label main --label pr); a key=value is drip run's record label: compare by it with --by %s", sanitize.Line(l), sanitize.Line(key))
		}
	}
	switch {
	case f.by == "" && len(paths) < 2:
		return usageErr("compare needs two or more record files (or --by KEY to split one)")
	case f.by != "" && len(f.labels) > 0:
		return usageErr("--label names files and --by makes the groups: pick one")
	case len(f.labels) > 0 && len(f.labels) != len(paths):
		// The cases above leave two or more files here.
		return usageErr("--label given %s for %d files: name every run or none", textfmt.Times(len(f.labels)), len(paths))
	case f.asJSON && f.markdown:
		return usageErr("--json and --markdown both write to stdout: pick one")
	}
	return nil
}

// comparisonFormat is the form --json or --markdown asks a comparison in
// (drip compare, drip replay).
func comparisonFormat(asJSON, markdown bool) compare.Format {
	switch {
	case asJSON:
		return compare.FormatJSON
	case markdown:
		return compare.FormatMarkdown
	}
	return compare.FormatText
}

// printComparison writes c in the form asked and says whether a gate
// tripped.
func printComparison(w io.Writer, c *compare.Comparison, form compare.Format) error {
	if err := compare.Write(w, c, form); err != nil {
		return cannotErr(err)
	}
	if c.Tripped() {
		return errGateTripped
	}
	return nil
}

// writeComparisonHTML writes --html for runs side by side (nothing
// without it).
func writeComparisonHTML(path string, c *compare.Comparison) error {
	h, err := openHTML(path, nil)
	if err != nil {
		return err
	}
	defer h.Close()
	return h.Comparison(c)
}

// compareLong is drip compare's --help text.
var compareLong = `Read two or more record files written by 'drip run --out' and compare them.
The first run is the baseline. Every figure is recomputed from the raw
records; each gets its change against the baseline, marked ! when it is 10%
or more worse (lower is better for latencies, higher for rates) and ~ when a
bootstrap interval of the p50 or p95 difference says it is within run-to-run
noise. A banner lists every workload setting that differs between the runs.

Relative gates hold each run to the baseline: '+10%' is a change relative to
the baseline's figure, '+20ms' an absolute change; gates without a sign work
as in 'drip run'. The baseline itself is not gated.

On a terminal it opens the compare screen: one column per run with the
figures aligned row by row, histograms and heatmaps on one scale, a
per-prompt panel, and any stream of any run opens in the watch view (enter;
esc comes back). Without a terminal, or with --no-tui, --json or
--markdown, it prints the comparison instead.

--by KEY pools the records of every file and compares them grouped by a
field instead of by file: host (runs from many hosts, see 'drip merge'), a
key of drip run's --label k=v, or any record field (prompt_id, status,
model, workload.concurrency). Groups are in the order of their values; the
first is the baseline.

Under the table, the clocks: for each run, whether ttft, the gaps, itl,
e2e and the tail moved beyond noise, and what that reads as — gaps moved
with ttft held points at the transport, ttft moved with gaps held at a
queue before generation.

Exit codes: 0 compared, no gate tripped; 1 a --fail-if gate tripped; 2
usage error (a bad flag or gate, a file that is missing or cannot be read,
fewer than two runs); 3 a record file that does not parse or holds no record.

` + gateAliasHelp

// compareExample is drip compare's --help examples.
var compareExample = `  drip compare before.jsonl after.jsonl
  drip compare main.jsonl pr.jsonl --label main --label pr --markdown
  drip compare main.jsonl pr.jsonl --fail-if 'ttft.p95 > +10%' --fail-if 'gap.p99 > +20ms'
  drip compare --by host all.jsonl
  drip compare --by region eu.jsonl us.jsonl
  drip compare --by level sweep.jsonl`
