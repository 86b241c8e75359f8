package tui

import "github.com/driplab/drip/views"

// textView is the stream screen's text panel. It holds the wrapped text,
// kept between frames (only new frames are wrapped), and the line at the
// top of the panel. Drawing it costs the lines on screen, however long the
// stream.
type textView struct {
	wrapped views.WrappedText
	top     int
	width   int
	height  int
	gen     int // counts the changes to wrapped and to the styles, which the drawing keys on
}

// textKey is what the text panel's drawing depends on besides the text.
type textKey struct {
	gen, top, w, h  int
	focused, follow bool
}

func (v *textView) maxTop() int { return max(0, v.wrapped.Lines()-v.height) }

// AtBottom reports that the last line is on screen.
func (v *textView) AtBottom() bool { return v.top >= v.maxTop() }

// scroll moves the top by n lines, kept in range.
func (v *textView) scroll(n int) { v.top = max(0, min(v.top+n, v.maxTop())) }

func (v *textView) gotoBottom() { v.top = v.maxTop() }

func (v *textView) render(st *views.Styles) string {
	return v.wrapped.Render(v.top, v.height, st)
}
