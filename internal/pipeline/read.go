package pipeline

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/hops"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Open opens a file a command was given to read. A missing or unreadable
// file is the caller's mistake in every command, exit 2 with the path
// named. A directory counts too, since it opens but holds nothing to read.
// A FIFO is opened without waiting for a writer (one with none reads as
// empty), so drip never hangs in an open that Ctrl-C cannot reach.
func Open(path string) (*os.File, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fileErr(path, err)
	}
	flag := os.O_RDONLY
	switch {
	case st.IsDir():
		return nil, Usage("%s: a directory, not a file", sanitize.Line(path))
	case st.Mode()&os.ModeNamedPipe != 0:
		flag |= syscall.O_NONBLOCK // Go's poller still waits for data once a writer is there
	}
	f, err := os.OpenFile(path, flag, 0)
	if err != nil {
		return nil, fileErr(path, err)
	}
	return f, nil
}

// fileErr is a file that cannot be opened, said as the path and the reason.
// The *fs.PathError's Op ("stat", "open") is Go's word, not the user's.
func fileErr(path string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		err = pe.Err
	}
	return Usage("%s: %s", sanitize.Line(path), sanitize.Line(err.Error()))
}

// Read reads one record file for a command, through the one reader
// (record.ReadAll, each record derived again by stats.Rederive). A
// partial final line (a run cut short) is reported on stderr and skipped.
// Any other bad line, named, or a file with no record, is exit 3.
func Read(path, label string, stderr io.Writer) (compare.Input, error) {
	f, err := Open(path)
	if err != nil {
		return compare.Input{}, err
	}
	defer f.Close()
	recs, skipped, err := record.ReadAll(f, stats.Rederive)
	if err != nil {
		return compare.Input{}, Cannot(fmt.Errorf("%s: %s", sanitize.Line(path), sanitize.Line(err.Error())))
	}
	for _, s := range skipped {
		fmt.Fprintf(stderr, "drip: %s: %s\n", sanitize.Line(path), sanitize.Line(s))
	}
	if len(recs) == 0 {
		return compare.Input{}, Cannot(fmt.Errorf("%s: %w", sanitize.Line(path), ErrNoRecords))
	}
	return compare.Input{Label: label, Source: path, Records: recs, Skipped: skipped}, nil
}

// ReadAll reads each record file of paths with Read, labels[i] naming
// paths[i]. The first that fails ends it.
func ReadAll(paths, labels []string, stderr io.Writer) ([]compare.Input, error) {
	inputs := make([]compare.Input, len(paths))
	for i, path := range paths {
		var err error
		if inputs[i], err = Read(path, labels[i], stderr); err != nil {
			return nil, err
		}
	}
	return inputs, nil
}

// ReadRelays puts a client's records (read from the file client) beside
// the relays' record files (drip hops, drip view --relay). It returns nil
// without any relay files. A relay file is read as Read reads it, and one
// that does not belong is a usage error naming it.
func ReadRelays(client string, recs []*record.Record, relays []string, stderr io.Writer) (*hops.Report, error) {
	if len(relays) == 0 {
		return nil, nil
	}
	ins, err := ReadAll(relays, relays, stderr)
	if err != nil {
		return nil, err
	}
	files := make([]hops.File, len(ins))
	for i, in := range ins {
		files[i] = hops.File{Name: sanitize.Line(in.Source), Records: in.Records} // the report prints it
	}
	rep, err := hops.Analyse(hops.File{Name: sanitize.Line(client), Records: recs}, files)
	if err != nil { // a *hops.FileError, naming the file
		return nil, Usage("%v", err)
	}
	return rep, nil
}
