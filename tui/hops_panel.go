package tui

import (
	"strings"

	"github.com/driplab/drip/internal/hops"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/views"
)

// streamHops is the hops panel (drip view --relay): the stream beside the
// relay's record of it.
type streamHops struct{ s *streamScreen }

func (p streamHops) draw(b box) string {
	s := p.s
	note := "no relay exchange matched"
	switch {
	case s.lay.left != "": // the clocks, in the gaps' place, went for room
		note = strings.Replace(s.lay.left, "gaps", "clocks", 1)
	case s.cur.Hops != nil:
		note = "beside " + s.cur.Hops.RelayFile
	}
	return title(&s.sh.styles, "hops", note, b.w, false) + "\n" +
		views.HopsPanel(s.cur.Hops, b.w, b.h-1, &s.sh.styles.Views)
}

// hopsOf is rec beside the relay's record of it; nil without a relay or a
// match.
func (s *streamScreen) hopsOf(rec *record.Record) *hops.Stream {
	return s.m.cfg.Relay[rec]
}
