package tui

import (
	"context"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// frameInterval caps redraws at 30 per second however fast frames arrive.
const frameInterval = time.Second / 30

// Beyond bigRecord frames, a live stream's O(n) panels (the derived
// figures, text, clocks, gaps, heatmap) are redrawn at most every
// slowInterval instead of every frame. At thousands of frames a second
// nobody reads them faster, and the CPU is better left to the probe.
// However big the stream, they go over at most heavyFrames frames a
// second (heavyEvery). Deriving, summing and drawing a frame again costs
// about 0.35 µs. A 100,000-frame stream redrawn 4 times a second took
// 14 % of a core for its figures alone (BenchmarkLiveModel), and the
// screens must stay under 5 % with the other core's sibling busy.
const (
	bigRecord    = 4096
	slowInterval = 250 * time.Millisecond
	heavyFrames  = 25_000
)

// heavyEvery is the least time between redraws of the O(n) panels of
// frames frames in flight.
func heavyEvery(frames int) time.Duration {
	every := time.Duration(frames) * time.Second / heavyFrames
	if frames >= bigRecord {
		every = max(every, slowInterval)
	}
	return every
}

// zoomMS is the window of the zoomed timeline, the last few seconds.
const zoomMS = 2000

// Source is something the live view can stream. Stream records one stream
// (seq counts the source's runs from 0) and calls observe as it unfolds.
type Source struct {
	Name   string // shown in the header, e.g. the demo scenario
	Stream func(ctx context.Context, seq int, observe func(probe.Event)) *record.Record
}

// Config is what the live view shows and does.
type Config struct {
	Sources []Source         // what r re-runs, and n cycles between several
	Records []*record.Record // saved records shown at once (drip view)
	File    string           // the file Records came from, named in the header
	// Relay maps each saved record to a relay's record of it (drip view
	// --relay). It feeds the hops panel and the stalls' owners. Nil means
	// no relay.
	Relay map[*record.Record]*hops.Stream
	// RelayFetch asks a relay (drip record --hops-addr) for a stream's
	// times by its record.StreamKey while it runs (drip watch --relay). It
	// shows the stalls' owners live. Nil means none.
	RelayFetch func(ctx context.Context, id string) (hops.Relayed, error)
	// Sink receives every finished record on the probe's goroutine, also
	// those that end after the view has quit (e.g. --out).
	Sink    func(*record.Record)
	StallMS float64
	Color   bool   // false for NO_COLOR
	SaveDir string // where s writes records, "" for the working directory
	// Warning is said first in every screen's header, however narrow the
	// terminal. It is what the user must not forget while watching (-k).
	Warning string
	Clock   func() time.Time // nil means time.Now
}

// Model is the root model of the live view. It owns the shell every
// screen shares and the probe's plumbing (context, feed, goroutines). It
// routes each message to the screen showing.
type Model struct {
	cfg     Config
	ctx     context.Context // ends every stream
	cancel  context.CancelFunc
	streams *sync.WaitGroup
	feed    *feed
	sh      shell
	// after schedules a message. Tests and benchmarks run it on their clock.
	after func(time.Duration, tea.Msg) tea.Cmd
	tags  int // the last feed tag handed out. Events of other tags are stale.

	active screen
	stream *streamScreen  // always set, as the other screens open streams in it
	cmp    *compareScreen // nil unless the model was opened on a comparison
	rs     *runScreen     // nil unless the model was opened on a run
	ts     *targetsScreen // nil unless the model was opened on several targets

	composed     string // the screen View returns
	viewDirty    bool   // composed is out of date
	redraws      int
	quitting     bool
	beginPending bool // Init ran before the first window size
}

// New returns the live view for cfg. Streams end when ctx does.
func New(ctx context.Context, cfg Config) *Model {
	if cfg.StallMS <= 0 {
		cfg.StallMS = stats.DefaultStall
	}
	now := cfg.Clock
	if now == nil {
		now = time.Now
	}
	ctx, cancel := context.WithCancel(ctx)
	m := &Model{
		cfg: cfg, ctx: ctx, cancel: cancel, streams: &sync.WaitGroup{}, feed: newFeed(),
		sh: shell{color: cfg.Color, now: now},
		after: func(d time.Duration, msg tea.Msg) tea.Cmd {
			return tea.Tick(d, func(time.Time) tea.Msg { return msg })
		},
	}
	m.sh.setStyles(true)
	m.stream = newStreamScreen(m)
	m.active = m.stream
	return m
}

// tag hands out a new feed tag, for a stream or a round.
func (m *Model) tag() int {
	m.tags++
	return m.tags
}

// quit ends every stream and the program. Ctrl-C (a key here, the
// terminal being raw) ends it as an interrupt, so that the command exits
// as it does after the signal (130). The q key ends it as a quit.
func (m *Model) quit(k tea.KeyPressMsg) tea.Cmd {
	m.quitting = true
	m.cancel()
	if k.String() == "ctrl+c" {
		return tea.Interrupt
	}
	return tea.Quit
}

// show makes s the screen showing. It lays out and draws itself for the
// terminal's size now.
func (m *Model) show(s screen) {
	m.active = s
	m.viewDirty = true
}

// beginDelay is how long after the terminal's size is known the first
// stream starts. Bubble Tea sets the terminal up, draws the first frame
// and flushes it on its next frame tick, all while Init's commands run.
// A stream started with them read TTFT 6 ms high on an idle machine and
// headers 4–99 ms high on a loaded one. Two frame ticks later that work is
// done and the first stream reads what a headless one does.
const beginDelay = 2 * frameInterval

// beginMsg starts what the view measures.
type beginMsg struct{}

// Init asks for the background colour and starts listening to the feed.
// The first stream (or round, or workload) starts beginDelay after the
// first window size, once the first frame is drawn. A model that already
// knows its size (tests) starts it at once.
func (m *Model) Init() tea.Cmd {
	cmds := []tea.Cmd{tea.RequestBackgroundColor, m.feed.wait(m.ctx)}
	if m.sh.width > 0 {
		cmds = append(cmds, m.begin())
	} else {
		m.beginPending = true
	}
	if m.cmp != nil && m.cmp.live != nil {
		cmds = append(cmds, m.after(liveCompareInterval, liveCompareTickMsg{}))
	}
	return tea.Batch(cmds...)
}

// begin starts what the view measures. That is the first round of several
// targets, the first stream of the current source, or the workload.
func (m *Model) begin() tea.Cmd {
	if m.ts != nil {
		return m.ts.startRound()
	}
	var cmds []tea.Cmd
	if len(m.cfg.Sources) > 0 && len(m.cfg.Records) == 0 {
		cmds = append(cmds, m.stream.startRun())
	}
	if m.rs != nil {
		cmds = append(cmds, m.rs.start())
	}
	return tea.Batch(cmds...)
}

func msSince(a, b time.Time) float64 {
	if a.IsZero() {
		return 0
	}
	return float64(b.Sub(a)) / float64(time.Millisecond)
}

// Records returns every finished record the view holds, oldest first.
func (m *Model) Records() []*record.Record { return m.stream.history }

// Redraws is how many times the panels were redrawn.
func (m *Model) Redraws() int { return m.redraws }

// Wait ends every stream and waits for their goroutines, so that every
// record has reached the sink.
func (m *Model) Wait() {
	m.cancel()
	m.streams.Wait()
}
