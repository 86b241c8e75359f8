package record

import (
	"errors"
	"io"
	"os"
	"sync"
)

// Writer is the one writer of record files. It writes JSON Lines, one
// record a line as each stream ends, each written to the file in one write so an
// interrupted run loses nothing. Decode and ReadAll read what it writes.
// It is safe for concurrent use.
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

// CreatePrivate creates or truncates a file drip writes results to
// (records, and what is made of them, such as a CSV, an HTML report or a
// trace), mode 0600 whether or not it existed. O_CREAT's mode applies
// only to a new file, so an existing regular file is chmodded too (a device such as
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
func (w *Writer) Write(r *Record) error {
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
