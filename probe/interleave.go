package probe

import (
	"context"
	"time"

	"github.com/driplab/drip/record"
)

// Interleave runs the plans in turns, so drift in the network or the load
// around them lands on every plan alike: each turn a slice of every plan's
// streams (its concurrency, one with the closed loop's default), plan
// after plan, numbered on from the last turn and on one time axis, warmup
// in the first turn only, until every plan has its Runs. Each record goes
// to sink with its plan's index.
func Interleave(ctx context.Context, plans []Plan, sink func(i int, r *record.Record)) {
	start := time.Now()
	done := make([]int, len(plans))
	next := make([]int, len(plans))
	for turn := 0; ctx.Err() == nil; turn++ {
		more := false
		for i, base := range plans {
			left := base.Runs - done[i]
			if left <= 0 || ctx.Err() != nil {
				continue
			}
			more = true
			p := base
			p.Runs = min(left, max(1, base.Concurrency))
			p.FirstSeq, p.Start = next[i], start
			if turn > 0 {
				p.Warmup = 0
			}
			Run(ctx, p, func(r *record.Record) {
				next[i] = max(next[i], r.Seq+1)
				if r.Phase != record.PhaseWarmup {
					done[i]++
				}
				sink(i, r)
			}, nil)
		}
		if !more {
			return
		}
	}
}
