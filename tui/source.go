package tui

import (
	"context"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// StreamSource is a source that streams t with o: each stream (r re-runs
// it) a measured record of run runID, sending the default prompt.
func StreamSource(name, runID string, t probe.Target, o probe.Options) Source {
	return Source{Name: name, Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
		rec := &record.Record{RunID: runID, Seq: seq, Phase: record.PhaseMeasure, PromptID: probe.DefaultPromptID}
		return probe.Stream(ctx, t, o, rec, observe)
	}}
}
