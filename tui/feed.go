package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// event is a probe event tagged with the run it belongs to and the time the
// UI side learned of it. Its record is a copy, as the probe keeps writing
// its own. Its frames are the probe's, which it never writes again.
type event struct {
	run int
	at  time.Time
	probe.Event
	all []record.Frame // for EventFrames, the stream's frames so far
	// For EventFrames, firstByte is when the first body bytes came. It is
	// read on the probe's goroutine, so the screen can show it before the
	// stream ends.
	firstByte *float64
}

// feed carries events from probe goroutines to the model. The probe calls
// the observer on its read path, so pushing never blocks. Events go into a
// mutex-guarded buffer, which loses none. A notification goes into a
// channel of one, which is lossy, as one pending notification stands for
// any number of events.
type feed struct {
	mu     sync.Mutex
	buf    []event
	signal chan struct{}
}

func newFeed() *feed { return &feed{signal: make(chan struct{}, 1)} }

// observer returns the probe observer for one run.
func (f *feed) observer(run int, clock func() time.Time) func(probe.Event) {
	return func(ev probe.Event) {
		e := event{run: run, at: clock(), Event: probe.Event{Seq: ev.Seq, Type: ev.Type}}
		switch ev.Type {
		case probe.EventFrames:
			// No copy is needed. The probe only appends (probe.Event),
			// so the frames up to here stay as they are.
			e.Frames = ev.Frames
			e.all = ev.Record.Frames[:len(ev.Record.Frames):len(ev.Record.Frames)]
			if fb := ev.Record.FirstByteMS; fb != nil {
				v := *fb
				e.firstByte = &v
			}
		default:
			// Take a shallow copy on the probe's goroutine. The frames
			// slice is shared but only ever appended to past its length.
			cp := *ev.Record
			if ev.Type != probe.EventDone {
				cp.Frames = nil
			}
			e.Record = &cp
		}
		f.push(e)
	}
}

func (f *feed) push(e event) {
	f.mu.Lock()
	f.buf = append(f.buf, e)
	f.mu.Unlock()
	select {
	case f.signal <- struct{}{}:
	default:
	}
}

// drain takes every buffered event and hands the feed spare (emptied) to
// fill next. It swaps the slices, so the probe never waits on a copy.
func (f *feed) drain(spare []event) []event {
	f.mu.Lock()
	out := f.buf
	f.buf = spare[:0]
	f.mu.Unlock()
	return out
}

// wait is a command that returns once the feed has events, or nil when ctx
// ends (commands are never cancelled, so it watches the context itself).
func (f *feed) wait(ctx context.Context) tea.Cmd {
	return func() tea.Msg {
		select {
		case <-f.signal:
			return feedMsg{}
		case <-ctx.Done():
			return nil
		}
	}
}
