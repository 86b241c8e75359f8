package probe

import (
	"bufio"
	"encoding/json"
	"errors"
	"fmt"
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

// ReadRecords reads a JSON Lines record file. A final line that is cut short
// (a run killed mid-write) is skipped and reported in skipped; any other bad
// line is an error naming its line number. Every record is re-derived from
// its raw frames with its own stall threshold.
func ReadRecords(r io.Reader) (recs []*record.Record, skipped []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 1<<20), 1<<30)
	line := 0
	var pendingErr error
	for sc.Scan() {
		line++
		b := sc.Bytes()
		if len(b) == 0 {
			continue
		}
		if pendingErr != nil {
			return nil, nil, pendingErr
		}
		rec := &record.Record{}
		if err := json.Unmarshal(b, rec); err != nil {
			// Only the last line may be cut short; decide when we know.
			pendingErr = fmt.Errorf("line %d: %w", line, err)
			skipped = append(skipped, fmt.Sprintf("line %d: partial record skipped (%v)", line, err))
			continue
		}
		if rec.V != record.RecordVersion {
			return nil, nil, fmt.Errorf("line %d: record version %d, want %d", line, rec.V, record.RecordVersion)
		}
		if rec.StallMS <= 0 {
			rec.StallMS = stats.DefaultStall
		}
		if err := stats.Derive(rec, rec.StallMS); err != nil {
			return nil, nil, fmt.Errorf("line %d: %w", line, err)
		}
		recs = append(recs, rec)
	}
	if err := sc.Err(); err != nil {
		return nil, nil, err
	}
	return recs, skipped, nil
}
