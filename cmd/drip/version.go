package main

import (
	"bytes"
	"fmt"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strings"

	"github.com/spf13/cobra"
)

// Set by the release build (.goreleaser.yaml):
//
//	-ldflags "-X main.linkVersion=v1.2.3 -X main.linkCommit=abc1234"
//
// so a release binary names its version even where the build info has
// none (-buildvcs=false, a build from a source archive).
var linkVersion, linkCommit string

// buildID is what a binary knows about where it came from.
type buildID struct {
	Version  string // module or release version; "dev" for a local build
	Commit   string // VCS revision, "" when unknown
	Modified bool   // built from a tree with uncommitted changes
	Go       string // the toolchain that built it
	// FromGit: the build had no commit (-buildvcs=false, go run), so
	// Commit is the HEAD of the checkout it was built from, read now.
	FromGit bool
}

// readBuildID prefers what the linker was told, then the module build
// info (go install …@v1.2.3 records the version, a build in a checkout the
// VCS revision), then "dev".
func readBuildID() buildID {
	id := buildID{Version: linkVersion, Commit: linkCommit, Go: runtime.Version()}
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
func (id buildID) String() string {
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

// fullBuildID is readBuildID, its commit read from git when the build has
// none: a build in a checkout with VCS stamping off (GOFLAGS=-buildvcs=false,
// go run) still names its commit. Only drip version and --version ask, so
// no other command runs git.
func fullBuildID() buildID {
	id := readBuildID()
	if id.Commit == "" {
		id.Commit, id.Modified = checkoutHead(sourceDir())
		id.FromGit = id.Commit != ""
	}
	return id
}

// sourceDir is the directory this file was compiled from: the checkout's
// cmd/drip, unless the build trimmed paths (-trimpath, as a release's).
func sourceDir() string {
	_, file, _, ok := runtime.Caller(0)
	if !ok || !filepath.IsAbs(file) {
		return ""
	}
	return filepath.Dir(file)
}

// checkoutHead is the HEAD commit of the git checkout holding dir and
// whether tracked files differ from it; "" when there is none (or no git).
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

// version is drip's version as records and summaries carry it.
var version = readBuildID().Version

// userAgent is the User-Agent drip's requests carry unless -H sets one.
var userAgent = "drip/" + version

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print drip's version, commit and Go version",
		Long: `Print the version drip was built as, the commit it was built from and the
Go toolchain that built it. A release build names its tag; go install
…@v1.2.3 names the module version; a build in a checkout names its commit
(with +modified for uncommitted changes) and says dev; a build that was not
stamped (GOFLAGS=-buildvcs=false, go run) names the HEAD of the checkout it
was built from, read with git, and says so.`,
		Example: `  drip version
  drip --version`,
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), fullBuildID())
		},
	}
}
