package pipeline

import (
	"fmt"
	"io"
	"os"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/sanitize"
)

// Open opens a file a command was given to read. A missing or unreadable
// file (a directory included: it opens, but holds nothing to read) is the
// caller's mistake, in every command: exit 2, the path named.
func Open(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, Usage("%s", sanitize.Line(err.Error()))
	}
	if fi, err := f.Stat(); err == nil && fi.IsDir() {
		f.Close()
		return nil, Usage("%s: a directory, not a file", sanitize.Line(path))
	}
	return f, nil
}

// Read reads one record file, the one reader of every command. A partial
// final line (a run cut short) is reported on stderr and skipped; any
// other bad line, or a file with no record, is exit 3.
func Read(path, label string, stderr io.Writer) (compare.Input, error) {
	f, err := Open(path)
	if err != nil {
		return compare.Input{}, err
	}
	defer f.Close()
	recs, skipped, err := probe.ReadRecords(f)
	if err != nil {
		return compare.Input{}, Cannot(fmt.Errorf("%s: %w", sanitize.Line(path), err))
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "drip: %s: %s\n", sanitize.Line(path), sanitize.Line(s))
	}
	if len(recs) == 0 {
		return compare.Input{}, Cannot(fmt.Errorf("%s: %w", sanitize.Line(path), ErrNoRecords))
	}
	return compare.Input{Label: label, Source: path, Records: recs, Skipped: skipped}, nil
}
