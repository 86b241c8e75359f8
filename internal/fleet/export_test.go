package fleet

// WriteNotes is writeNotes for the external tests.
var WriteNotes = writeNotes
