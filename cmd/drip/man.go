package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
	"github.com/spf13/cobra/doc"
)

func newManCmd() *cobra.Command {
	var dir string
	cmd := &cobra.Command{
		Use:   "man",
		Short: "Write drip's man pages (one per command) into a directory",
		Long: `Write a man page for drip and each of its commands (drip.1, drip-run.1, …)
from the same text as --help, into --dir.`,
		Example: `  drip man --dir ./man && man ./man/drip-run.1
  sudo drip man --dir /usr/local/share/man/man1`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				return cannotErr(fmt.Errorf("--dir: %w", err))
			}
			root := cmd.Root()
			root.DisableAutoGenTag = true // pages that do not change with the day they were made
			header := &doc.GenManHeader{Title: "DRIP", Section: "1", Source: "drip " + version}
			if err := doc.GenManTree(root, header, dir); err != nil {
				return cannotErr(err)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "man pages written to %s\n", dir)
			return nil
		},
	}
	cmd.Flags().StringVar(&dir, "dir", "man", "directory to write the pages into")
	return cmd
}
