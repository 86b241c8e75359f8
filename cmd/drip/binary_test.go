package main

import (
	"os/exec"
	"path/filepath"
	"testing"
)

// builtDrip builds the real binary for a test that drives it as a user
// would (signals, memory); the build cache makes every build after the
// first a link.
func builtDrip(t *testing.T) string {
	t.Helper()
	if testing.Short() {
		t.Skip("builds the binary")
	}
	bin := filepath.Join(t.TempDir(), "drip")
	if out, err := exec.Command("go", "build", "-o", bin, ".").CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, out)
	}
	return bin
}
