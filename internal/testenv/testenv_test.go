package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

func TestLookPathFindsAShellCommand(t *testing.T) {
	if p := LookPath(t, "sh", "apt-get install -y dash"); p == "" {
		t.Fatal("LookPath returned an empty path for sh")
	}
}

func TestMissingIsLoggedForTheTestCommand(t *testing.T) {
	log := filepath.Join(t.TempDir(), "missing")
	t.Setenv(MissingLog, log)
	t.Setenv("CI", "")
	t.Run("needs", func(t *testing.T) {
		LookPath(t, "no-such-command-drip-test", "apt-get install -y no-such-package")
		t.Error("LookPath returned for a command that is not installed")
	})
	got, err := os.ReadFile(log)
	want := "TestMissingIsLoggedForTheTestCommand/needs: no-such-command-drip-test (install: apt-get install -y no-such-package)\n"
	if err != nil || string(got) != want {
		t.Errorf("%s holds %q (%v), want %q", MissingLog, got, err, want)
	}
}
