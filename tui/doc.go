// Package tui is drip's live program. One root Bubble Tea model (Model)
// runs the probe, turns its events into immutable snapshots and lays out
// the views' panels on a screen.
//
// New watches streams one at a time from a Source (drip watch, drip view
// of saved Records). NewRun follows a load run (drip run), NewTargets
// shows several targets side by side, and NewCompare and NewLiveCompare
// show a comparison. Config says what is shown and where finished records
// go (Sink), and a tea.Program runs the model. The probe runs in its own
// goroutines and never waits for the UI. What it sends reaches the model
// as messages, and the model drops stale results by their tag.
package tui
