package pipeline

import (
	"fmt"
	"io"
	"strings"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/sweep"
)

// CheckCompare refuses drip compare's flags that do not go together. Those
// are the record files at paths, their --label names, --by, --json and
// --markdown. An error is a usage error naming the flags.
func CheckCompare(paths, labels []string, by string, asJSON, markdown bool) error {
	for _, l := range labels {
		// drip run's --label k=v tags records, but here it names a run. This
		// check comes first, since a k=v is no run name, however many are given.
		if key, _, ok := strings.Cut(l, "="); ok {
			return Usage("--label %q: in compare, --label names a run (e.g. --label main --label pr); a key=value is drip run's record label: compare by it with --by %s", sanitize.Line(l), sanitize.Line(key))
		}
	}
	switch {
	case by == "" && len(paths) < 2:
		return Usage("compare needs two or more record files (or --by KEY to split one)")
	case by != "" && len(labels) > 0:
		return Usage("--label names files and --by makes the groups: pick one")
	case len(labels) > 0 && len(labels) != len(paths):
		return Usage("--label given %s for %s: name every run or none", textfmt.Times(len(labels)), stats.Count(len(paths), "file"))
	case asJSON && markdown:
		return Usage("--json and --markdown both write to stdout: pick one")
	}
	return nil
}

// CompareFiles reads the record files at paths, named by labels (by
// their file names when none are given). It pools and groups their records
// by the field by when it is set (compare --by), and compares them under
// gates. The sweep is the levels a --by level comparison recomputes, nil
// otherwise. A file is read as Read reads it. A grouping or a comparison
// refused is a usage error.
func CompareFiles(paths, labels []string, by string, gates []stats.Gate, stderr io.Writer) (*compare.Comparison, *sweep.Result, error) {
	if len(labels) == 0 {
		labels = compare.DefaultLabels(paths)
	}
	inputs, err := ReadAll(paths, labels, stderr)
	if err != nil {
		return nil, nil, err
	}
	levels := sweep.OfInputs(by, inputs)
	if by != "" {
		if inputs, err = compare.GroupBy(inputs, by); err != nil {
			return nil, nil, Usage("%v", err)
		}
	}
	c, err := compare.New(inputs, compare.Options{Gates: gates})
	if err != nil {
		return nil, nil, Usage("%v", err)
	}
	return c, levels, nil
}

// ParseBaselineGates reads every --fail-if of a command with a baseline
// (compare, replay), so relative gates ('+10%') are allowed. An error is a
// usage error naming the flag.
func ParseBaselineGates(failIf []string) ([]stats.Gate, error) {
	var gates []stats.Gate
	for _, e := range failIf {
		g, err := stats.ParseGate(e)
		if err != nil {
			return nil, Usage("--fail-if: %v", err)
		}
		gates = append(gates, g)
	}
	return gates, nil
}

// Comparison says how a comparison of runs is reported (compare, replay).
type Comparison struct {
	JSON, Markdown bool
	Sweep          *sweep.Result // compare --by level's levels, recomputed from the records
}

// ReportComparison prints c as text, JSON or Markdown, and returns
// ErrGateTripped when a gate tripped for a run.
func ReportComparison(w io.Writer, c *compare.Comparison, f Comparison) error {
	switch {
	case f.JSON:
		if err := compare.JSON(w, c); err != nil {
			return Cannot(err)
		}
	case f.Markdown:
		compare.Markdown(w, c)
		if f.Sweep != nil {
			fmt.Fprintln(w)
			sweep.Markdown(w, f.Sweep)
		}
	default:
		compare.Text(w, c)
		WriteSweep(w, f.Sweep)
	}
	return comparisonOutcome(c)
}

// ComparisonVerdicts prints the gates after a compare screen, which does
// not show them, with the exit the headless report would end with.
func ComparisonVerdicts(w io.Writer, c *compare.Comparison) error {
	compare.GateLines(w, c.Gates)
	return comparisonOutcome(c)
}

func comparisonOutcome(c *compare.Comparison) error {
	if c.Tripped() {
		return ErrGateTripped
	}
	return nil
}
