package cliconv

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"
)

// RefuseUnknownSubcommands makes every group command below the root
// (fixtures, export, completion) refuse a word that names none of its
// subcommands, as cobra does at the root only. Otherwise cobra prints
// the group's help and exits 0, and a CI step 'drip fixtures srve &'
// succeeds. The group alone still prints its help. The refusal is a
// plain error, which the command reports as cobra's own, a usage error.
func RefuseUnknownSubcommands(root *cobra.Command) {
	for _, c := range root.Commands() {
		RefuseUnknownSubcommands(c)
		if !c.HasSubCommands() || c.Runnable() {
			continue
		}
		c.SuggestionsMinimumDistance = 2 // cobra's default, which only its root sets
		c.Args = func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return nil
			}
			msg := fmt.Sprintf("unknown command %q for %q", args[0], cmd.CommandPath())
			if s := cmd.SuggestionsFor(args[0]); len(s) > 0 {
				msg += "\n\nDid you mean this?\n\t" + strings.Join(s, "\n\t")
			}
			return fmt.Errorf("%s\nsee '%s --help'", msg, cmd.CommandPath())
		}
		c.RunE = func(cmd *cobra.Command, _ []string) error { return cmd.Help() }
		c.DisableFlagsInUseLine = true // usage 'drip fixtures', not 'drip fixtures [flags]'
	}
}

// ExplainArgs wraps every command's argument check so that a wrong count
// shows the command's usage line and where its help is, as a bad flag does
// (cobra alone says "accepts 1 arg(s), received 0"). It is a usage error,
// as the command reports every plain error cobra returns.
func ExplainArgs(c *cobra.Command) {
	if check := c.Args; check != nil {
		c.Args = func(cmd *cobra.Command, args []string) error {
			if err := check(cmd, args); err != nil {
				return fmt.Errorf("%v\nusage: %s\nsee '%s --help'", err, cmd.UseLine(), cmd.CommandPath())
			}
			return nil
		}
	}
	for _, sub := range c.Commands() {
		ExplainArgs(sub)
	}
}
