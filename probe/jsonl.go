package probe

import (
	"errors"
	"io"
	"os"
	"sync"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// Writer writes records as JSON Lines, one per stream, each flushed to the
// file as soon as it is written so an interrupted run loses nothing.
type Writer struct {
	mu  sync.Mutex
	f   io.Writer
	buf []byte
	err error
}

// Create opens path for records, mode 0600 (records may hold prompts).
func Create(path string) (*Writer, error) {
	f, err := CreatePrivate(path)
	if err != nil {
		return nil, err
	}
	return &Writer{f: f}, nil
}

// CreatePrivate creates or truncates a file drip writes results to, mode
// 0600 whether or not it existed: O_CREAT's mode applies only to a new
// file, so an existing regular file is chmodded too (a device such as
// /dev/stdout or a pipe is left as it is).
func CreatePrivate(path string) (*os.File, error) {
	f, err := os.OpenFile(path, os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err != nil || !st.Mode().IsRegular() {
		return f, nil
	}
	if err := f.Chmod(0o600); err != nil {
		f.Close()
		return nil, err
	}
	return f, nil
}

// NewWriter writes records to w (closed by Close when it is an io.Closer).
func NewWriter(w io.Writer) *Writer { return &Writer{f: w} }

// Write appends one record. The first error sticks and is returned again.
func (w *Writer) Write(r *record.Record) error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.err == nil {
		w.buf, w.err = appendRecord(w.buf[:0], r)
	}
	if w.err == nil {
		_, w.err = w.f.Write(w.buf) // one write a record, as it ends
	}
	return w.err
}

// Close closes the file.
func (w *Writer) Close() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	if c, ok := w.f.(io.Closer); ok {
		return errors.Join(w.err, c.Close())
	}
	return w.err
}

// ReadRecords reads a record file through record.Decode (its format, its
// checks and its notes on a last line cut short) and re-derives every
// record from its raw frames with its own stall threshold, so every
// command reads a file the same way. An error names its line.
func ReadRecords(r io.Reader) (recs []*record.Record, skipped []string, err error) {
	skipped, err = record.Decode(r, func(rec *record.Record) error {
		if rec.StallMS <= 0 {
			rec.StallMS = stats.DefaultStall
		}
		if err := stats.Derive(rec, rec.StallMS); err != nil {
			return err
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return recs, skipped, nil
}
