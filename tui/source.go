package tui

import (
	"context"
	"sync"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// StreamSource is a source that sends t with o, each stream a measured
// record of runID with the default prompt.
func StreamSource(name, runID string, t probe.Target, o probe.Options) Source {
	return Source{Name: name, Stream: func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record {
		rec := &record.Record{RunID: runID, Seq: seq, Phase: record.PhaseMeasure, PromptID: probe.DefaultPromptID}
		return probe.Stream(ctx, t, o, rec, observe)
	}}
}

// Round sends one stream from every source without a screen, at once or
// one after another (alternate), each record to sink as it ends.
func Round(ctx context.Context, srcs []Source, sink func(*record.Record), alternate bool) {
	var wg sync.WaitGroup
	for _, src := range srcs {
		if alternate {
			sink(src.Stream(ctx, 0, func(probe.Event) {}))
			continue
		}
		wg.Go(func() { sink(src.Stream(ctx, 0, func(probe.Event) {})) })
	}
	wg.Wait()
}
