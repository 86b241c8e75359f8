// Package testenv finds the real parts some tests drive (nginx, node and its
// SDKs, a time-series database). A missing part is never a silent pass: under
// CI (CI set) the test fails, elsewhere it is skipped with a loud message.
package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Missing ends the test because a real part it needs is not on this machine.
func Missing(t testing.TB, what, install string) {
	t.Helper()
	msg := "REAL PART MISSING: " + what + " (install: " + install + "); this test did not run"
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg)
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
