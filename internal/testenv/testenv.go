// Package testenv finds the real parts some tests drive (nginx, node and its
// SDKs, a time-series database) and makes real faults for them, packet
// loss from nftables and a reader starved by a CPU quota. A missing part
// is never a silent pass. Under CI (CI set) the test fails, and elsewhere
// it is skipped with a loud message, and the test command (.ci/test) ends with a
// line naming every such test.
package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"testing"
)

// MissingLog is the environment variable naming the file Missing appends
// a line to for every test it ends. .ci/test sets it and prints the lines
// last, as go test shows a passing package's skips only with -v.
const MissingLog = "DRIP_MISSING_PARTS"

// Missing ends the test because a real part it needs is not on this machine.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	msg := "REAL PART MISSING: " + what + " (install: " + install + "); this test did not run"
	logMissing(t.Name(), what, install)
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
}

// logMissing appends "test: what (install: …)" to MissingLog's file, when
// it is set. It is one short write with O_APPEND, so tests of several
// packages running at once do not interleave their lines.
func logMissing(test, what, install string) {
	path := os.Getenv(MissingLog)
	if path == "" {
		return
	}
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_APPEND|os.O_CREATE, 0o600)
	if err != nil {
		return // the skip itself still says it
	}
	defer f.Close()
	fmt.Fprintf(f, "%s: %s (install: %s)\n", test, what, install)
}

// LookPath returns the path of the named command, or ends the test through
// Missing when it is not installed.
func LookPath(t testing.TB, name, install string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err != nil {
		Missing(t, name, install)
	}
	return p
}
