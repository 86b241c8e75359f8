package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/record"
)

// liveCompareInterval is how often the compare screen of runs still
// being measured is recomputed. The bootstrap intervals cost a few
// milliseconds, and the figures settle slower than that anyway.
const liveCompareInterval = 500 * time.Millisecond

// CompareFeed carries the records of runs being measured to a compare
// screen. Call Add from any goroutine as each stream ends, and Close once
// every run is over. It never blocks the runner for longer than an append.
type CompareFeed struct {
	mu     sync.Mutex
	labels []string
	recs   [][]*record.Record
	closed bool
	build  func(runs [][]*record.Record, closed bool) *compare.Comparison
}

// NewCompareFeed is a feed for runs with these labels, the first the
// baseline, compared side by side.
func NewCompareFeed(labels []string) *CompareFeed {
	return NewCompareFeedBy(labels, func(runs [][]*record.Record, closed bool) *compare.Comparison {
		inputs := make([]compare.Input, len(labels))
		for i, l := range labels {
			inputs[i] = compare.Input{Label: l, Records: runs[i]}
		}
		c, err := compare.New(inputs, compare.Options{})
		if err != nil {
			return nil
		}
		if !closed {
			compare.WhileMeasuring(c) // "measured streams: A 4 · B 2" is progress
		}
		return c
	})
}

// NewCompareFeedBy is a feed for runs with these labels whose comparison
// build makes of each run's records so far (closed means every run is
// over). It serves a comparison that is more than its runs side by side.
// drip replay's holds the recording as the baseline and judges its gates.
func NewCompareFeedBy(labels []string, build func(runs [][]*record.Record, closed bool) *compare.Comparison) *CompareFeed {
	return &CompareFeed{labels: labels, recs: make([][]*record.Record, len(labels)), build: build}
}

// Add files a finished record under run i.
func (f *CompareFeed) Add(i int, r *record.Record) {
	f.mu.Lock()
	f.recs[i] = append(f.recs[i], r)
	f.mu.Unlock()
}

// Close says every run is over.
func (f *CompareFeed) Close() {
	f.mu.Lock()
	f.closed = true
	f.mu.Unlock()
}

// Closed reports whether every run is over.
func (f *CompareFeed) Closed() bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.closed
}

// snapshot is the comparison of the records so far, each run's count,
// and whether the runs are over.
func (f *CompareFeed) snapshot() (*compare.Comparison, string, bool) {
	f.mu.Lock()
	runs := make([][]*record.Record, len(f.labels))
	counts := make([]string, len(f.labels))
	for i := range f.labels {
		runs[i] = append([]*record.Record(nil), f.recs[i]...)
		counts[i] = fmt.Sprintf("%s %d", compare.Letter(i), len(f.recs[i]))
	}
	closed := f.closed
	f.mu.Unlock()
	return f.build(runs, closed), strings.Join(counts, " · "), closed
}

// liveCompareTickMsg recomputes a live comparison.
type liveCompareTickMsg struct{}

// NewLiveCompare returns the root model on the compare screen of runs
// still being measured. It fills in as feed receives records, recomputed
// every liveCompareInterval, until the feed is closed.
func NewLiveCompare(ctx context.Context, feed *CompareFeed, cfg Config) *Model {
	c, _, _ := feed.snapshot()
	m := NewCompare(ctx, c, cfg)
	m.cmp.live = feed
	m.cmp.status = "measuring · the figures fill in as streams end"
	return m
}

// liveTick recomputes the comparison from the feed and re-arms itself
// while the runs go on.
func (cs *compareScreen) liveTick() tea.Cmd {
	c, counts, closed := cs.live.snapshot()
	if c != nil {
		cs.load(c)
		cs.setPanel(cs.panel)
	}
	cs.status = "measuring · streams so far: " + counts
	if closed {
		cs.status = "done · streams: " + counts
	}
	cs.render()
	if closed {
		return nil
	}
	return cs.m.after(liveCompareInterval, liveCompareTickMsg{})
}
