//go:build unix

package main

import (
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// A FIFO no one writes to is read as empty by every command, at once: an
// open that waited for a writer would hang where Ctrl-C cannot reach it.
func TestEveryCommandReadsAFIFOWithNoWriterAsEmpty(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	fifo := filepath.Join(dir, "fifo.jsonl")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, args := range readers(t, fifo, writeRecording(t, "/v1/chat/completions"), dir) {
		code, _, stderr := drip(t, args...)
		if code != exitCannotGo || !strings.Contains(stderr, "fifo.jsonl: no records") {
			t.Errorf("drip %s: exit %d, stderr:\n%s\nwant 3, no records", strings.Join(args[:2], " "), code, stderr)
		}
	}
}
