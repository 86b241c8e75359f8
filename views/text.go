package views

// nbsp keeps a stall marker on one line when the text wraps.
const nbsp = "\u00a0"
