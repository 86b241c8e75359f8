// Package record is drip's record format, the types a stream is kept as
// and the file they are kept in.
//
// A Record is one stream, its request, its HTTP outcome, every frame with
// the time of the read that brought it (Frame, its Kind and Channel), and
// the figures derived from those times (TTFT, gaps, Stalls, the Delivery,
// an Error with its class). drip record adds the Exchange it relayed. The
// probe fills records, package stats derives and aggregates them, and
// everything else reads them.
//
// A record file is JSON Lines, one record a line, as each stream ends.
// Writer is its one writer (Create a file, or NewWriter over any
// io.Writer). Decode is its one reader, a record at a time, and ReadAll
// reads a whole file. The reader takes a gzip'd file, a byte order mark
// and CRLF line ends, refuses a line that is no record (Check) with an
// error naming its line (LineError), bounds a line at MaxLine, and skips a
// last line the file ends inside (a run stopped mid-write) with a note.
// Records read back carry the figures drip wrote; stats.Rederive derives
// them again from the frames, as every drip command does.
//
//	recs, notes, err := record.ReadAll(f, stats.Rederive)
//
// The package imports nothing of drip, so every layer can share it.
package record
