package main

import (
	"github.com/spf13/cobra"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
)

// addCompletions teaches cobra's shell completion (drip completion bash|
// zsh|fish|powershell) drip's own values: --format names, the demo's
// scenarios, and record files for the commands that read them.
func addCompletions(root *cobra.Command) {
	formats := append([]string{adapters.Auto.Name}, adapters.Names()...)
	records := func(*cobra.Command, []string, string) ([]string, cobra.ShellCompDirective) {
		return []string{"jsonl"}, cobra.ShellCompDirectiveFilterFileExt
	}
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("format") != nil {
			c.RegisterFlagCompletionFunc("format", cobra.FixedCompletions(formats, cobra.ShellCompDirectiveNoFileComp))
		}
		switch c.Name() {
		case "demo":
			c.ValidArgsFunction = cobra.FixedCompletions(fixtures.Names(), cobra.ShellCompDirectiveNoFileComp)
		case "view", "compare", "merge", "replay":
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = records
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
