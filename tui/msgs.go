package tui

// feedMsg says the probe has left events in the feed. Notifications are
// lossy, as one stands for many. The events themselves are not.
type feedMsg struct{}

// frameMsg is the redraw tick. Only the tick of the current generation
// counts, so a re-armed tick never doubles the frame rate.
type frameMsg struct{ gen int }

// savedMsg reports the records written by the save key.
type savedMsg struct {
	path string
	n    int
	err  error
}
