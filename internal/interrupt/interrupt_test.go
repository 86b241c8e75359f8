package interrupt

import (
	"context"
	"os"
	"syscall"
	"testing"
)

// A Ctrl-C noted on a screen ends the command as SIGINT: its context is
// canceled and caught says os.Interrupt; a context Catch did not make is
// left alone.
func TestNoteIsTheSIGINTItWouldHaveBeen(t *testing.T) {
	ctx, caught, stop := Catch()
	defer stop()
	if caught() != nil {
		t.Fatal("a signal caught before any came")
	}
	Note(ctx)
	<-ctx.Done()
	if got := caught(); got != os.Interrupt {
		t.Errorf("caught %v, want interrupt", got)
	}
	Note(context.Background()) // no Catch: nothing to note, no panic
}

// A real SIGTERM cancels the context and is what caught reports.
func TestCatchCancelsOnSIGTERM(t *testing.T) {
	ctx, caught, stop := Catch()
	defer stop()
	if err := syscall.Kill(os.Getpid(), syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	<-ctx.Done()
	if got := caught(); got != syscall.SIGTERM {
		t.Errorf("caught %v, want SIGTERM", got)
	}
}
