package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/buildinfo"
)

// version is drip's version as records and summaries carry it.
var version = buildinfo.Read().Version

// userAgent is the User-Agent drip's requests carry unless -H sets one.
var userAgent = "drip/" + version

const versionLong = `Print the version drip was built as, the commit it was built from and the
Go toolchain that built it. A release build names its tag; go install
…@v1.2.3 names the module version; a build in a checkout names its commit
(with +modified for uncommitted changes) and says dev; a build that was not
stamped (GOFLAGS=-buildvcs=false, go run) names the HEAD of the checkout it
was built from, read with git, and says so.`

func newVersionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print drip's version, commit and Go version",
		Long:  versionLong,
		Example: `  drip version
  drip --version`,
		Args: cobra.NoArgs,
		Run: func(cmd *cobra.Command, _ []string) {
			fmt.Fprintln(cmd.OutOrStdout(), buildinfo.Full())
		},
	}
}
