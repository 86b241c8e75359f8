package probe

import (
	"context"
	"crypto/rand"
	"encoding/hex"
)

// Plan is a run: which target, how many streams, and the probe's options.
type Plan struct {
	Target   Target
	Options  Options
	Runs     int // measured streams
	Warmup   int // warmup streams before them
	PromptID string
	RunID    string // generated when empty
}

// NewRunID returns a short random run identifier.
func NewRunID() string {
	var b [6]byte
	rand.Read(b[:])
	return hex.EncodeToString(b[:])
}

// Run carries out a plan one stream at a time: warmup streams first, then
// the measured ones. Each record is handed to sink as soon as it ends;
// observe sees every stream as it unfolds. It stops early, after recording
// the canceled stream, when ctx is done.
func Run(ctx context.Context, p Plan, sink func(*Record), observe func(Event)) {
	o := p.Options.withDefaults()
	if p.RunID == "" {
		p.RunID = NewRunID()
	}
	runStart := o.Clock()
	total := p.Warmup + p.Runs
	for seq := range total {
		if ctx.Err() != nil {
			return
		}
		rec := &Record{RunID: p.RunID, Seq: seq, Phase: PhaseMeasure, PromptID: p.PromptID}
		if seq < p.Warmup {
			rec.Phase = PhaseWarmup
		}
		rec.RunOffsetMS = ms(o.Clock().Sub(runStart))
		Stream(ctx, p.Target, o, rec, observe)
		// The offset is taken again from the stream's own start, which
		// Stream set just before sending.
		if !rec.Start.IsZero() {
			rec.RunOffsetMS = ms(rec.Start.Sub(runStart))
		}
		sink(rec)
	}
}
