package netlog

import (
	"bytes"
	"log"
	"os"
	"testing"
)

// What net/http logs is counted, a line each, and said once with the
// first line, sanitised; nothing logged, nothing said.
func TestCaptureCountsAndWarnsOnce(t *testing.T) {
	t.Cleanup(func() { log.SetOutput(os.Stderr); log.SetFlags(log.LstdFlags) })
	l := Capture()
	var quiet bytes.Buffer
	l.Warn(&quiet)
	if quiet.Len() != 0 {
		t.Errorf("nothing logged, yet %q", quiet.String())
	}
	log.Print("http: TLS handshake error from 127.0.0.1:1: \x1b[31mEOF")
	log.Print("Unsolicited response received on idle HTTP channel\nsecond line")
	var w bytes.Buffer
	l.Warn(&w)
	want := "drip: warning: net/http logged 3 line(s) during the run (kept off the screen); the first: http: TLS handshake error from 127.0.0.1:1: EOF\n"
	if w.String() != want {
		t.Errorf("warned %q, want %q", w.String(), want)
	}
}
