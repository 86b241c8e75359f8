package buildinfo

import (
	"os/exec"
	"runtime"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/testenv"
)

func TestLinkerValuesWin(t *testing.T) {
	saved, savedCommit := linkVersion, linkCommit
	t.Cleanup(func() { linkVersion, linkCommit = saved, savedCommit })
	linkVersion, linkCommit = "v1.4.0", "0123456789abcdef0123"
	got := Read().String()
	want := "drip v1.4.0 (commit 0123456789ab, " + runtime.Version()
	if !strings.HasPrefix(got, want) {
		t.Errorf("release build says %q, want it to start %q", got, want)
	}
}

// TestFallsBackToGit: a test binary, like a build with -buildvcs=false,
// carries no commit; Full names the checkout's HEAD, read with git, and
// says where it came from.
func TestFallsBackToGit(t *testing.T) {
	t.Parallel()
	git := testenv.LookPath(t, "git", "apt-get install -y git")
	if id := Read(); id.Commit != "" {
		t.Skipf("this build is stamped (commit %s): no fallback to test", id.Commit)
	}
	head, err := exec.Command(git, "rev-parse", "HEAD").Output()
	if err != nil {
		t.Fatalf("not in a git checkout: %v", err)
	}
	got := Full().String()
	want := "(commit " + string(head[:12])
	if !strings.Contains(got, want) || !strings.Contains(got, "from git") {
		t.Errorf("Full %q: want %q… and 'from git'", got, want)
	}
}
