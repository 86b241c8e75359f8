// Package pipeline owns what becomes of records once measured, whatever
// their source (a live run, a record file, a replay). It owns the sinks
// they are written to as they end (JSONL, CSV, exporters), the aggregate,
// the summary, the gates, the report and the exit code the command ends
// with. cmd/drip parses flags and wires a source to it.
package pipeline

import (
	"errors"
	"fmt"
)

// Exit codes every drip command ends with (docs/records.md, Exit codes).
const (
	ExitOK     = 0
	ExitGate   = 1 // a --fail-if gate tripped
	ExitUsage  = 2 // the caller's mistake, and nothing was sent
	ExitCannot = 3 // the run could not be carried out, or its results not kept
)

// ExitError carries an exit code up to main.
type ExitError struct {
	Code int
	Err  error
}

func (e *ExitError) Error() string { return e.Err.Error() }
func (e *ExitError) Unwrap() error { return e.Err }

// Usage is a usage error (exit 2).
func Usage(format string, a ...any) error {
	return &ExitError{ExitUsage, fmt.Errorf(format, a...)}
}

// Cannot is an error that kept the command from doing its work (exit 3).
func Cannot(err error) error { return &ExitError{ExitCannot, err} }

// ErrNoRecords is Read's error for a file that holds no record.
var ErrNoRecords = errors.New("no records")

// ErrGateTripped is returned after the report when a --fail-if gate
// tripped. main prints nothing more for it.
var ErrGateTripped = &ExitError{ExitGate, errors.New("a --fail-if gate tripped")}

// FirstErr is the first error that is not nil. It decides the exit when
// each of a command's steps may fail.
func FirstErr(errs ...error) error {
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}
