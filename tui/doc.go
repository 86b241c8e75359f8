// Package tui is drip's live program: one root Bubble Tea model (Model)
// that runs the probe, turns its events into immutable snapshots and lays
// out the views' panels on a screen.
//
// New watches streams one at a time from a Source (drip watch, drip view
// of saved Records), NewRun follows a load run (drip run), NewTargets
// several targets side by side, NewCompare and NewLiveCompare a
// comparison. Config says what is shown and where finished records go
// (Sink); the model is run by a tea.Program. The probe runs in its own
// goroutines and never waits for the UI; what it sends reaches the model
// as messages, and stale results are dropped by tag.
package tui
