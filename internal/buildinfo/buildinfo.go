// Package buildinfo is what a drip binary knows about where it came from,
// the release or module version, the commit, the toolchain, and, for a
// build that was not stamped, the HEAD of the checkout it was built from.
package buildinfo

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"
)

// The release build (.goreleaser.yaml) sets these with
//
//	-ldflags "-X github.com/driplab/drip/internal/buildinfo.linkVersion=v1.2.3 -X github.com/driplab/drip/internal/buildinfo.linkCommit=abc1234"
//
// so a release binary names its version even where the build info has
// none (-buildvcs=false, a build from a source archive).
var linkVersion, linkCommit string

// ID is what a binary knows about where it came from.
type ID struct {
	Version  string // module or release version, "dev" for a local build
	Commit   string // VCS revision, "" when unknown
	Modified bool   // built from a tree with uncommitted changes
	Go       string // the toolchain that built it
	// FromGit says the build had no commit (-buildvcs=false, go run), so
	// Commit is the HEAD of the checkout it was built from, read now.
	FromGit bool
}

// Read prefers what the linker was told, then the module build info (go
// install …@v1.2.3 records the version, a build in a checkout the VCS
// revision), then "dev".
func Read() ID {
	id := ID{Version: linkVersion, Commit: linkCommit, Go: runtime.Version()}
	bi, ok := debug.ReadBuildInfo()
	if ok {
		if id.Version == "" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
			id.Version = bi.Main.Version
		}
		for _, s := range bi.Settings {
			switch {
			case s.Key == "vcs.revision" && id.Commit == "":
				id.Commit = s.Value
			case s.Key == "vcs.modified" && linkCommit == "":
				id.Modified = s.Value == "true"
			}
		}
		if bi.GoVersion != "" {
			id.Go = bi.GoVersion
		}
	}
	if id.Version == "" {
		id.Version = "dev"
	}
	return id
}

// String is the one line drip version and --version print.
func (id ID) String() string {
	commit := id.Commit
	switch {
	case commit == "":
		commit = "unknown"
	case len(commit) > 12:
		commit = commit[:12]
	}
	if id.Modified {
		commit += "+modified"
	}
	if id.FromGit {
		commit += ", from git: the build was not stamped"
	}
	return fmt.Sprintf("drip %s (commit %s, %s, %s/%s)", id.Version, commit, id.Go, runtime.GOOS, runtime.GOARCH)
}

// Full is Read, its commit read from git when the build has none. A
// build in a checkout with VCS stamping off (GOFLAGS=-buildvcs=false, go
// run) still names its commit. Only drip version and --version ask, so no
// other command runs git.
func Full() ID {
	id := Read()
	if id.Commit == "" {
		id.Commit, id.Modified = checkoutHead(sourceDir())
		id.FromGit = id.Commit != ""
	}
	return id
}

// sourceDir is the directory this file was compiled from, the checkout's
// internal/buildinfo, unless the build trimmed paths (-trimpath, as a
// release's).
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(file)
}

// checkoutHead is the HEAD commit of the git checkout holding dir and
// whether tracked files differ from it, "" when there is none (or no git).
func checkoutHead(dir string) (commit string, modified bool) {
	if dir == "" {
		return "", false
	}
	out, err := exec.Command("git", "-C", dir, "rev-parse", "HEAD").Output()
	if err != nil {
		return "", false
	}
	status, err := exec.Command("git", "-C", dir, "status", "--porcelain", "--untracked-files=no").Output()
	return strings.TrimSpace(string(out)), err == nil && len(bytes.TrimSpace(status)) > 0
}
