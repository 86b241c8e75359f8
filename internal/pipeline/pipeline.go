package pipeline

import (
	"context"
	"errors"
	"fmt"
	"maps"
	"slices"
	"strings"
	"sync"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Pipeline is where every record of one source goes as it ends. Each goes
// into the aggregate the summary is made of, and to each sink. Streams end
// on their own goroutines, so Add takes turns. The first failed write is
// kept and stops the source (StopOnWriteError), so a run whose records are
// being lost does not go on.
type Pipeline struct {
	mu        sync.Mutex
	stallMS   float64
	agg       *stats.Aggregate
	sinks     []Sink
	keep      bool
	records   []*record.Record
	reachable bool           // a response came from the server (any HTTP status)
	measured  int            // records not of the warmup
	failures  map[string]int // measured streams that did not complete, by error class
	formats   []string       // the formats the records were decoded as, in order first seen
	err       error          // the first failed write
	stop      context.CancelFunc
}

// New is a pipeline whose aggregate detects stalls at stallMS and counts
// goodput against slo. A nil slo counts no goodput.
func New(stallMS float64, slo *stats.SLO) *Pipeline {
	a := stats.NewAggregate(stallMS)
	a.SLO = slo
	return &Pipeline{stallMS: stallMS, agg: a}
}

// ForFiles is a pipeline that only writes records, with no aggregate. It
// serves a proxy recording for hours, a merge, or a replay compared
// afterwards.
func ForFiles(sinks ...Sink) *Pipeline { return &Pipeline{sinks: sinks} }

// Attach adds sinks. Every record from now on goes to them.
func (p *Pipeline) Attach(s ...Sink) { p.sinks = append(p.sinks, s...) }

// KeepRecords keeps every record for Records. A comparison or a live
// session's summaries need them, and a long run's aggregate does not.
func (p *Pipeline) KeepRecords() { p.keep = true }

// StopOnWriteError returns ctx, canceled as soon as a write fails.
func (p *Pipeline) StopOnWriteError(ctx context.Context) context.Context {
	ctx, p.stop = context.WithCancel(ctx)
	return ctx
}

// Add takes one finished record.
func (p *Pipeline) Add(r *record.Record) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.agg != nil {
		p.agg.Add(r)
	}
	if p.keep {
		p.records = append(p.records, r)
	}
	p.reachable = p.reachable || r.HTTPStatus != 0
	if !slices.Contains(p.formats, r.Format) {
		p.formats = append(p.formats, r.Format)
	}
	if r.Phase != record.PhaseWarmup {
		p.measured++
		if !r.Complete {
			class := r.Status
			if r.Error != nil {
				class = sanitize.Line(r.Error.Class)
			}
			if p.failures == nil {
				p.failures = map[string]int{}
			}
			p.failures[class]++
		}
	}
	for _, s := range p.sinks {
		if err := s.Write(r); err != nil && p.err == nil {
			p.err = fmt.Errorf("%s: %w", s.Name, err)
			if p.stop != nil {
				p.stop()
			}
		}
	}
}

// found is the format a summary names. Under auto it is the one the
// responses were decoded as (several joined by commas), so no report
// says auto where the bytes said which. It is auto when none was detected.
func (p *Pipeline) found(format string) string {
	if format != adapters.Auto.Name {
		return format
	}
	p.mu.Lock()
	defer p.mu.Unlock()
	detected := slices.DeleteFunc(slices.Clone(p.formats), func(f string) bool { return f == adapters.Auto.Name || f == "" })
	if len(detected) == 0 {
		return format
	}
	return strings.Join(detected, ",")
}

// Close closes every sink. A record file is not whole until it is closed,
// so its error counts as a failed write. It is kept for Err and returned.
func (p *Pipeline) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	var errs []error
	for _, s := range p.sinks {
		if err := s.Close(); err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", s.Name, err))
		}
	}
	p.sinks = nil
	err := errors.Join(errs...)
	if p.err == nil {
		p.err = err
	}
	return err
}

// Finish closes the sinks. A failed write or close is exit 3, for the
// commands whose report does not go on past it.
func (p *Pipeline) Finish() error {
	werr := p.Err()
	if cerr := p.Close(); werr == nil {
		werr = cerr
	}
	if werr != nil {
		return Cannot(fmt.Errorf("writing records: %w", werr))
	}
	return nil
}

// Err is the first failed write or close (nil when all went well).
func (p *Pipeline) Err() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.err
}

// Records are the records so far, with KeepRecords.
func (p *Pipeline) Records() []*record.Record {
	p.mu.Lock()
	defer p.mu.Unlock()
	return slices.Clone(p.records)
}

// Reached reports whether any stream got a response from the server.
func (p *Pipeline) Reached() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.reachable
}

// NoneCompleted is exit 3 when not one measured stream completed, with the
// failures by class, for a pipeline without an aggregate. what names the
// streams, as in a replay's error
// `no replayed stream completed (2 replayed: ...)`. A stream the user stopped
// (canceled) leaves the verdict to the gates.
func (p *Pipeline) NoneCompleted(what string) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	failed := 0
	for _, n := range p.failures {
		failed += n
	}
	if p.measured > failed || p.failures[record.ErrCanceled] > 0 {
		return nil
	}
	return Cannot(fmt.Errorf("no %s stream completed (%d %s%s)", what, p.measured, what, p.failureClasses()))
}

// failureClasses lists the failures by class (`: http_429 ×3`), to follow
// the count in NoneCompleted's error.
func (p *Pipeline) failureClasses() string {
	var parts []string
	for _, c := range slices.Sorted(maps.Keys(p.failures)) {
		parts = append(parts, fmt.Sprintf("%s ×%d", c, p.failures[c]))
	}
	if len(parts) == 0 {
		return ""
	}
	return ": " + strings.Join(parts, ", ")
}
