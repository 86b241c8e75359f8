package tui

import (
	"regexp"
	"strings"
	"testing"
	"unicode"

	tea "charm.land/bubbletea/v2"

	"github.com/driplab/drip/record"
)

// hostile carries an OSC title, OSC 52, a colour drip never uses, a C1
// CSI and a bidi override: what a server can put in any string.
const hostile = "\x1b]0;pwned\x07\x1b]52;c;cHduZWQ=\x07\x1b[38;5;199m\u009b2J\u202eevil"

var styling = regexp.MustCompile("\x1b\\[[0-9;:]*m")

// The run screen and a stream opened from it show what servers sent —
// text, error classes and messages, prompt ids, server figures — without
// a byte that could drive the terminal: only the screen's own styling.
func TestRunScreenShowsNoHostileControls(t *testing.T) {
	rh := newRunHarness(t)
	rh.update(tea.WindowSizeMsg{Width: 120, Height: 40})
	for i := range 6 {
		r := rh.stream("hostile-text", i, "p"+hostile)
		r.Model += hostile
		r.Server = map[string]any{"queue" + hostile: 1.0}
		if i%2 == 1 {
			r.Status, r.Error = record.StatusFailed, &record.Error{Class: "reset" + hostile, Message: "closed" + hostile}
		}
		rh.play(r, 0, -1)
		rh.sink(r)
		rh.advance(frameInterval)
	}
	var screens []string
	for _, k := range []string{"", "down", "enter", "tab", "tab", "esc", "down", "enter"} {
		if k != "" {
			rh.update(runKey(k))
			rh.advance(frameInterval)
		}
		screens = append(screens, rh.m.View().Content)
	}
	for i, s := range screens {
		if strings.Contains(s, "\x1b[38;5;199m") {
			t.Errorf("screen %d: the server's colour reached the terminal", i)
		}
		for j, r := range styling.ReplaceAllString(s, "") {
			if r != '\n' && r != '\t' && !unicode.IsGraphic(r) {
				plain := styling.ReplaceAllString(s, "")
				t.Errorf("screen %d: %U at byte %d: %q", i, r, j, plain[max(j-60, 0):min(j+20, len(plain))])
				break
			}
		}
	}
	if !strings.Contains(rh.screen(), "evil") {
		t.Errorf("the hostile fields are not on the screen at all:\n%s", rh.screen())
	}
}
