package compare

import (
	"encoding/json"
	"io"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// jsonComparison is the --json output: each run's summary (docs/records.md, Summary) with
// its deltas against the baseline.
type jsonComparison struct {
	V                   int             `json:"v"`
	Baseline            string          `json:"baseline"`
	WorsePct            float64         `json:"worse_pct"`
	Noise               Noise           `json:"noise"`
	WorkloadDifferences []Difference    `json:"workload_differences"`
	Runs                []jsonRun       `json:"runs"`
	Prompts             []jsonPrompt    `json:"prompts,omitempty"`
	Readings            []Reading       `json:"readings"`
	Gates               []GateResult    `json:"gates"`
	Tripped             bool            `json:"tripped"`
	Conventions         jsonConventions `json:"conventions"`
}

type jsonConventions struct {
	Deltas string `json:"deltas"`
	Worse  string `json:"worse"`
}

type jsonRun struct {
	Label   string        `json:"label"`
	File    string        `json:"file"`
	Skipped []string      `json:"skipped_lines,omitempty"`
	Summary stats.Summary `json:"summary"`
	Deltas  []jsonDelta   `json:"deltas,omitempty"` // none for the baseline
}

type jsonDelta struct {
	Metric   string       `json:"metric"`
	Unit     string       `json:"unit,omitempty"`
	Better   stats.Better `json:"better"`
	Baseline *float64     `json:"baseline"`
	Value    *float64     `json:"value"`
	*Delta
}

type jsonPrompt struct {
	ID   string    `json:"id"`
	Rows []jsonRow `json:"rows"`
}

type jsonRow struct {
	Metric string       `json:"metric"`
	Unit   string       `json:"unit,omitempty"`
	Better stats.Better `json:"better"`
	Values []*float64   `json:"values"` // per run, in run order
	Deltas []*Delta     `json:"deltas"` // per run; null for the baseline
}

// JSON writes the comparison as one indented JSON object.
func JSON(w io.Writer, c *Comparison) error {
	out := jsonComparison{
		V: record.RecordVersion, Baseline: c.Runs[0].Label, WorsePct: WorsePct, Noise: c.Noise,
		WorkloadDifferences: c.Workload, Readings: c.Readings, Gates: c.Gates, Tripped: c.Tripped(),
		Conventions: jsonConventions{
			Deltas: "abs = run − baseline; pct = abs / |baseline| × 100, null when the baseline is 0",
			Worse:  "a change of worse_pct or more in the worse direction (better: lower or higher), or any worsening of a baseline of 0",
		},
	}
	if out.WorkloadDifferences == nil {
		out.WorkloadDifferences = []Difference{}
	}
	if out.Gates == nil {
		out.Gates = []GateResult{}
	}
	for i, r := range c.Runs {
		jr := jsonRun{Label: r.Label, File: r.Source, Skipped: r.Skipped, Summary: r.Summary}
		jr.Summary.Histograms = nil // for merging summaries; the comparison has the records
		if i > 0 {
			for _, sec := range c.Sections {
				for _, row := range sec.Rows {
					jr.Deltas = append(jr.Deltas, jsonDelta{Metric: row.Key, Unit: row.Unit, Better: row.Better,
						Baseline: row.Values[0], Value: row.Values[i], Delta: row.Deltas[i]})
				}
			}
		}
		out.Runs = append(out.Runs, jr)
	}
	for _, p := range c.Prompts {
		jp := jsonPrompt{ID: p.ID}
		for _, sec := range p.Sections {
			for _, row := range sec.Rows {
				jp.Rows = append(jp.Rows, jsonRow{Metric: row.Key, Unit: row.Unit, Better: row.Better, Values: row.Values, Deltas: row.Deltas})
			}
		}
		out.Prompts = append(out.Prompts, jp)
	}
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	return enc.Encode(out)
}
