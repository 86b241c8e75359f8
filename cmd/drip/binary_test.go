package main

import "testing"

// builtDrip is the real binary for a test that drives it as a user would
// (signals, memory), built once per test run (dripBinary).
func builtDrip(t testing.TB) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	return dripBinary(t)
}
