package tui

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/internal/compare"
	"github.com/driplab/drip/record"
)

// liveCompareInterval is how often the compare screen of runs still
// being measured is recomputed: the bootstrap intervals cost a few
// milliseconds, and the figures settle slower than that anyway.
const liveCompareInterval = 500 * time.Millisecond

// CompareFeed carries the records of runs being measured to a compare
// screen: Add from any goroutine as each stream ends, Close once every run
// is over. It never blocks the runner for longer than an append.
type CompareFeed struct {
	mu     sync.Mutex
	labels []string
	recs   [][]*record.Record
	closed bool
}

// NewCompareFeed is a feed for runs with these labels, the first the
// baseline.
func NewCompareFeed(labels []string) *CompareFeed {
	return &CompareFeed{labels: labels, recs: make([][]*record.Record, len(labels))}
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

// snapshot is the comparison of the records so far, and whether the runs
// are over.
func (f *CompareFeed) snapshot() (*compare.Comparison, string, bool) {
	f.mu.Lock()
	inputs := make([]compare.Input, len(f.labels))
	counts := make([]string, len(f.labels))
	for i, l := range f.labels {
		inputs[i] = compare.Input{Label: l, Records: append([]*record.Record(nil), f.recs[i]...)}
		counts[i] = fmt.Sprintf("%s %d", compare.Letter(i), len(f.recs[i]))
	}
	closed := f.closed
	f.mu.Unlock()
	c, err := compare.New(inputs, compare.Options{})
	if err != nil {
		return nil, "", closed
	}
	if !closed {
		compare.WhileMeasuring(c) // "measured streams: A 4 · B 2" is progress
	}
	return c, strings.Join(counts, " · "), closed
}

// liveCompareTickMsg recomputes a live comparison.
type liveCompareTickMsg struct{}

// NewLiveCompare returns the root model on the compare screen of runs
// still being measured: it fills in as feed receives records, recomputed
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
