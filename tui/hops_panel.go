package tui

import (
	"strings"
	"time"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/views"
)

// streamHops is the hops panel (drip view --relay). It shows the stream
// beside the relay's record of it.
type streamHops struct{ s *streamScreen }

func (p streamHops) draw(b box) string {
	s := p.s
	note := "no relay exchange matched"
	switch {
	case s.lay.gaps.b.h == 0: // the clocks, in the gaps' place, went for room
		note = strings.Replace(s.lay.left, "gaps", "clocks", 1)
	case s.cur.Hops != nil:
		note = "beside " + s.cur.Hops.RelayFile
	}
	return title(&s.sh.styles, "hops", note, b.w, false) + "\n" +
		views.HopsPanel(s.cur.Hops, b.w, b.h-1, &s.sh.styles.Views)
}

// beside says the screen shows streams beside a relay's records or times.
func (s *streamScreen) beside() bool {
	return s.m.cfg.Relay != nil || s.m.cfg.RelayFetch != nil
}

// relayEvery is how often the relay is asked for a running stream's times.
const relayEvery = 250 * time.Millisecond

// relayMsg is a relay's times for the stream of id.
type relayMsg struct {
	id  string
	rel hops.Relayed
	err error
}

// relayAgainMsg asks the relay again for a finished stream's times.
type relayAgainMsg struct{}

// relayAsk is where the screen is in asking the relay. It holds whether a
// question is in flight, when the last answer came, and the stream whose
// times it has whole (no more to ask).
type relayAsk struct {
	busy  bool
	at    time.Time
	whole string
}

// fetchRelay asks the relay for the current stream's times, at most every
// relayEvery and one question at a time. On a big stream it asks at most
// every heavyEvery, as each answer is set beside every frame. It asks
// until it has them whole for a finished stream.
func (s *streamScreen) fetchRelay() tea.Cmd {
	fetch, id := s.m.cfg.RelayFetch, s.cur.Record.StreamKey()
	every := max(relayEvery, heavyEvery(len(s.cur.Record.Frames)))
	if fetch == nil || id == "" || s.relay.busy || s.relay.whole == id || s.sh.now().Sub(s.relay.at) < every && s.live() {
		return nil
	}
	s.relay.busy = true
	ctx := s.m.ctx
	return func() tea.Msg {
		rel, err := fetch(ctx, id)
		return relayMsg{id, rel, err}
	}
}

// takeRelay puts the relay's times beside the stream they are of. For a
// finished stream whose times the relay has not finished, it asks again.
func (s *streamScreen) takeRelay(msg relayMsg) tea.Cmd {
	s.relay.busy, s.relay.at = false, s.sh.now()
	if msg.id != s.cur.Record.StreamKey() {
		return nil
	}
	if msg.err != nil {
		s.note = "relay: " + msg.err.Error()
		s.renderHeader()
		return nil
	}
	if strings.HasPrefix(s.note, "relay: ") {
		s.note = ""
	}
	s.cur.Hops = hops.Live(s.cur.Record, msg.rel)
	done := s.cur.Phase == views.PhaseDone
	if s.cur.Hops != nil && !done {
		s.cur.Hops.Holding = hops.Holding(s.cur.Record, msg.rel)
	}
	if done && msg.rel.Done {
		s.relay.whole = msg.id
	}
	s.dirtyData, s.dirtyText = true, true
	if s.live() {
		// The next frame tick draws the figures and the hops panel with
		// the answer. Redrawing everything at once for each answer, 4
		// times a second, cost more than all the rest of the screen.
		s.lastHeavy = time.Time{}
	} else {
		s.relayout()
		s.render(true)
	}
	if done && !msg.rel.Done {
		return s.m.after(relayEvery, relayAgainMsg{})
	}
	return nil
}

// hopsOf is rec beside the relay's record of it. It is nil without a
// relay or a match.
func (s *streamScreen) hopsOf(rec *record.Record) *hops.Stream {
	return s.m.cfg.Relay[rec]
}
