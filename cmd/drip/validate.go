package main

import (
	"math"

	"github.com/driplab/drip/probe"
)

// Bounds of the numeric flags. Beyond them a number is a typo or an attack
// on drip's own arithmetic (a rate of 1e-300 is an interval that overflows).
// A plan's own bounds are probe's (probe.MaxStreams, …).
const (
	maxCount     = probe.MaxStreams  // --max-tokens, drip demo's --runs
	maxInFlight  = probe.MaxInFlight // --slots, drip replay's --concurrency
	minSpeed     = 0.001             // drip fixtures serve --speed
	maxSpeed     = 1000
	maxFramesCap = 100_000_000
)

// intRange checks an integer flag against [lo, hi], naming the flag.
func intRange(flag string, v, lo, hi int) error {
	switch {
	case v < lo:
		return usageErr("%s %d: must be at least %d", flag, v, lo)
	case v > hi:
		return usageErr("%s %d: must be at most %d", flag, v, hi)
	}
	return nil
}

// rateRange checks --rate, which is 0 (no open loop) or a finite rate in
// range. pflag reads NaN and Inf as numbers.
func rateRange(v float64) error {
	if v == 0 {
		return nil
	}
	if math.IsNaN(v) || math.IsInf(v, 0) || v < probe.MinRate || v > probe.MaxRate {
		return usageErr("--rate %v: want a number of streams per second from %v to %v", v, probe.MinRate, probe.MaxRate)
	}
	return nil
}
