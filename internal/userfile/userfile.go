// Package userfile reads whole a file the user names on drip's command
// line, such as a config, a request body, a prompt file or a summary. It
// reads a regular file only, or "-" for stdin where the flag takes it, at
// most the limit each kind of file states, and no longer than its context
// lasts. Read whole, /dev/zero would fill memory and a FIFO with no writer
// would block for ever. A file past its kind's limit is refused before it
// is read. Record files are read a line at a time instead (record.Decode).
// The package imports the standard library alone, so probe may use it. The
// paths it names in errors reach the terminal through drip's sanitised
// error line.
package userfile

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"syscall"
)

// Kind is a kind of file a flag names.
type Kind struct {
	What  string // what the errors call it, such as "a config file"
	Limit int64  // the most bytes drip reads of it
	Stdin bool   // "-" reads stdin
}

// ErrNotRegular is a path that names no regular file (a device, a FIFO,
// a directory, a socket).
var ErrNotRegular = errors.New("not a regular file")

// ErrTooLarge is a file past its kind's limit.
var ErrTooLarge = errors.New("over the size limit")

// Read reads path whole, or stdin for "-" when k.Stdin. Every error names
// the path and, for a file of the wrong kind or past the limit, k.What and
// the limit. A done ctx stops the reading with ctx's error.
func Read(ctx context.Context, path string, k Kind, stdin io.Reader) ([]byte, error) {
	if path == "-" && k.Stdin {
		return readStdin(ctx, stdin, k)
	}
	// With O_NONBLOCK a FIFO (named, or put in the file's place after a
	// check) opens at once instead of waiting for a writer, and is then
	// refused. A regular file ignores the flag.
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			err = pe.Err // "open" is Go's word, not the user's
		}
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	defer f.Close()
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	if !st.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (%s): drip reads %s from a regular file%s", path, ErrNotRegular, modeName(st.Mode()), k.What, orStdin(k))
	}
	if st.Size() > k.Limit {
		return nil, tooLarge(path, k)
	}
	return readAll(ctx, f, path, st.Size(), k)
}

// readStdin reads stdin on a goroutine of its own, so that a done ctx
// ends the wait for a terminal or a pipe that sends nothing.
func readStdin(ctx context.Context, stdin io.Reader, k Kind) ([]byte, error) {
	type result struct {
		b   []byte
		err error
	}
	done := make(chan result, 1)
	go func() {
		b, err := readAll(ctx, stdin, "stdin", 0, k)
		done <- result{b, err}
	}()
	select {
	case r := <-done:
		return r.b, r.err
	case <-ctx.Done():
		return nil, ctx.Err()
	}
}

// readAll reads r to its end, one limit's worth and a byte at most,
// checking ctx between reads, into a buffer of hint bytes (the file's
// size) and its end-of-file read. That costs one copy, not growth's
// several.
func readAll(ctx context.Context, r io.Reader, name string, hint int64, k Kind) ([]byte, error) {
	var buf bytes.Buffer
	buf.Grow(int(hint) + bytes.MinRead)
	_, err := buf.ReadFrom(io.LimitReader(ctxReader{ctx, r}, k.Limit+1))
	b := buf.Bytes()
	switch {
	case ctx.Err() != nil:
		return nil, ctx.Err()
	case err != nil:
		return nil, fmt.Errorf("%s: %w", name, err)
	case int64(len(b)) > k.Limit:
		return nil, tooLarge(name, k) // a file that grew, or stdin
	}
	return b, nil
}

func tooLarge(name string, k Kind) error {
	return fmt.Errorf("%s: %w: more than %s, the most drip reads of %s", name, ErrTooLarge, size(k.Limit), k.What)
}

// ctxReader stops reading once ctx is done.
type ctxReader struct {
	ctx context.Context
	r   io.Reader
}

func (c ctxReader) Read(p []byte) (int, error) {
	if err := c.ctx.Err(); err != nil {
		return 0, err
	}
	return c.r.Read(p)
}

func orStdin(k Kind) string {
	if k.Stdin {
		return " (or - for stdin)"
	}
	return ""
}

func modeName(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a directory"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO"
	case m&fs.ModeCharDevice != 0:
		return "a character device"
	case m&fs.ModeDevice != 0:
		return "a block device"
	case m&fs.ModeSocket != 0:
		return "a socket"
	}
	return "not a plain file"
}

// size says a limit in the largest binary unit that divides it.
func size(n int64) string {
	switch {
	case n >= 1<<20 && n%(1<<20) == 0:
		return fmt.Sprintf("%d MiB", n>>20)
	case n >= 1<<10 && n%(1<<10) == 0:
		return fmt.Sprintf("%d KiB", n>>10)
	}
	return fmt.Sprintf("%d bytes", n)
}
