// Package interrupt is how a drip command ends on a signal. The first
// SIGINT or SIGTERM cancels its context, so the streams in flight are
// recorded as canceled and the report still prints, and the command
// exits as the signal would (128 + its number). A second one kills at
// once. A Ctrl-C pressed on a full screen counts as the SIGINT it would
// have been.
package interrupt

import (
	"context"
	"os"
	"os/signal"
	"sync"
	"sync/atomic"
	"syscall"
)

// Catch cancels the returned context on the first SIGINT or
// SIGTERM. In-flight streams are then recorded as canceled and the report
// still prints. Once one has come the handler is removed, so a second Ctrl-C
// kills at once. caught reports the signal (nil when none came).
func Catch() (ctx context.Context, caught func() os.Signal, stop func()) {
	sig := &signals{c: make(chan os.Signal, 1)}
	ctx, cancel := context.WithCancel(context.WithValue(context.Background(), signalsKey{}, sig))
	signal.Notify(sig.c, os.Interrupt, syscall.SIGTERM)
	done := make(chan struct{})
	go func() {
		select {
		case s := <-sig.c:
			sig.got.Store(s)
			signal.Stop(sig.c)
			cancel()
		case <-done:
		}
	}()
	caught = func() os.Signal {
		s, _ := sig.got.Load().(os.Signal)
		return s
	}
	var once sync.Once
	stop = func() { once.Do(func() { signal.Stop(sig.c); close(done); cancel() }) }
	return ctx, caught, stop
}

// signals is what Catch listens on and the signal it caught. A
// command's context holds it under signalsKey.
type signals struct {
	c   chan os.Signal
	got atomic.Value
}

type signalsKey struct{}

// Note takes a Ctrl-C pressed on a full screen, which the raw
// terminal delivers as a key, as the SIGINT it would have been. The
// command exits 130 and a second Ctrl-C kills at once, unless a signal
// came first. ctx is one Catch returned (or made from one), and any other
// is left alone.
func Note(ctx context.Context) {
	sig, ok := ctx.Value(signalsKey{}).(*signals)
	if !ok {
		return
	}
	sig.got.CompareAndSwap(nil, os.Interrupt) // caught() holds it at once
	select {
	case sig.c <- os.Interrupt:
	default:
	}
}
