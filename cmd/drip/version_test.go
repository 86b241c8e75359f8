package main

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/buildinfo"
	"github.com/driplab/drip/internal/testenv"
)

func TestVersionNamesVersionCommitAndGo(t *testing.T) {
	t.Parallel()
	code, byCmd, _ := drip(t, "version")
	_, byFlag, _ := drip(t, "--version")
	if code != exitOK || byCmd != byFlag {
		t.Fatalf("drip version exit %d %q, drip --version %q: want the same line", code, byCmd, byFlag)
	}
	if !strings.HasPrefix(byCmd, "drip ") || !strings.Contains(byCmd, "commit ") || !strings.Contains(byCmd, runtime.Version()) {
		t.Errorf("version line %q: want drip VERSION (commit …, %s, …)", byCmd, runtime.Version())
	}
}

// TestVersionFallsBackToGit: a test binary, like a build with
// -buildvcs=false, carries no commit; drip version names the checkout's
// HEAD, read with git, and says where it came from.
func TestVersionFallsBackToGit(t *testing.T) {
	t.Parallel()
	git := testenv.LookPath(t, "git", "apt-get install -y git")
	if id := buildinfo.Read(); id.Commit != "" {
		t.Skipf("this build is stamped (commit %s): no fallback to test", id.Commit)
	}
	head, err := exec.Command(git, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("not in a git checkout: %v", err)
	}
	_, got, _ := drip(t, "version")
	want := "(commit " + string(head[:12])
	if !strings.Contains(got, want) || !strings.Contains(got, "from git") {
		t.Errorf("drip version %q: want %q… and 'from git'", got, want)
	}
}
