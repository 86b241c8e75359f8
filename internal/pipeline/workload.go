package pipeline

import (
	"fmt"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// WorkloadOf describes a plan for its summary. It says what was sent, in
// what order, and what the figures leave out.
func WorkloadOf(p *probe.Plan, version string) stats.Workload {
	w := stats.Workload{
		Target: probe.RedactURL(p.Target.URL), Format: p.Target.Format.Name, Model: p.Target.Request.Model,
		MaxTokens: p.Target.Request.MaxTokens, Runs: p.Runs, Warmup: p.Warmup, PromptIDs: p.PromptIDs(),
		Concurrency: max(p.Concurrency, 1), Seed: p.Seed, Order: p.OrderPolicy(), Version: version,
		Lengths: p.Lengths,
	}
	if p.Duration > 0 {
		w.Duration = p.Duration.String()
	}
	w.TLSInsecure = p.Options.TLS != nil && p.Options.TLS.InsecureSkipVerify
	w.WarmupRule = "no warmup"
	if p.Warmup > 0 {
		w.WarmupRule = stats.Count(p.Warmup, "warmup stream") + " per prompt before measuring, excluded from every figure"
	}
	if p.Rate > 0 {
		w.Concurrency = 0
		w.Rate, w.Arrival, w.MaxInflight = p.Rate, p.Arrival, p.InflightLimit()
		w.Burstiness = p.Burstiness
		if p.Ramp > 0 {
			w.Ramp = p.Ramp.String()
		}
		if p.Warmup > 0 {
			w.WarmupRule += "; sent one at a time"
		}
	} else if p.Warmup > 0 && p.Concurrency > 1 {
		w.WarmupRule += fmt.Sprintf("; %d at a time", p.Concurrency)
	}
	return w
}

// SessionWorkload describes a live session's streams for their summary,
// one prompt, sent when the user asked.
func SessionWorkload(version string) func(*record.Record) stats.Workload {
	return func(r *record.Record) stats.Workload {
		return stats.Workload{
			Target: r.Target, Format: r.Format, Model: r.Model, PromptIDs: []string{r.PromptID},
			Concurrency: 1, Order: "one stream at a time, re-run by the user", WarmupRule: "no warmup", Version: version,
		}
	}
}
