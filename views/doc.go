// Package views draws drip's screens as strings: pure functions of
// (data, width, height, styles), no messages, no goroutines, no I/O.
//
// Each panel is a function such as Gaps, Timeline, Histogram, Heatmap or
// ClocksPanel that draws its data into a box of width × height terminal
// cells and returns exactly that box, every line as wide, so a screen
// lays panels out by joining their drawings (JoinColumns). Styles holds every style; its
// zero value draws plain text, NewStyles a terminal's colours. The live
// program (package tui) and the HTML report draw through these functions,
// and their golden tests fix every panel at 40, 80 and 120 columns.
//
// It is the only package that draws plots. Every string that came from a
// server is sanitised here, at the render boundary.
package views
