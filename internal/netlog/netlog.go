// Package netlog keeps what net/http writes to the standard logger off
// the terminal, for one warning once the command has ended.
package netlog

import (
	"bytes"
	"fmt"
	"io"
	"log"
	"sync"

	"github.com/driplab/drip/internal/sanitize"
)

// Log takes what net/http writes to the standard logger, such as
// "Unsolicited response received on idle HTTP channel" or a server's TLS
// handshake errors. On the terminal it would land in the middle of the
// live screen.
// It counts the lines and keeps the first, for one warning once the
// command has ended.
type Log struct {
	mu    sync.Mutex
	n     int
	first string
}

// Write counts p's lines and keeps the first.
func (l *Log) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	for _, line := range bytes.Split(bytes.TrimRight(p, "\n"), []byte("\n")) {
		if l.n == 0 {
			l.first = string(line)
		}
		l.n++
	}
	return len(p), nil
}

// Capture routes the standard logger into a new Log. It is never
// given back to stderr. A connection's read loop can still log after the
// command has ended and the warning is printed, and that line would land
// on the terminal after drip's last word.
func Capture() *Log {
	l := &Log{}
	log.SetOutput(l)
	log.SetFlags(0)
	return l
}

// Warn prints the one warning, when there was anything.
func (l *Log) Warn(w io.Writer) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.n == 0 {
		return
	}
	fmt.Fprintf(w, "drip: warning: net/http logged %d line(s) during the run (kept off the screen); the first: %s\n", l.n, sanitize.Line(l.first))
}
