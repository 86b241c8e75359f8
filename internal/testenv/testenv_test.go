package testenv

import "testing"

func TestLookPathFindsAShellCommand(t *testing.T) {
	if p := LookPath(t, "sh", "apt-get install -y dash"); p == "" {
		t.Fatal("LookPath returned an empty path for sh")
	}
}
