package main

import (
	"github.com/spf13/cobra"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
)

// addCompletions teaches cobra's shell completion (drip completion
// bash, zsh, fish or powershell) drip's own values. Those are --format
// names, the demo's scenarios, and record files for the commands and flags
// that read them (view, compare, merge, replay, export aiperf, fixtures
// serve --from).
func addCompletions(root *cobra.Command) {
	exampleCompletion(root)
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
		case "view", "compare", "merge", "replay", "aiperf":
			if c.ValidArgsFunction == nil {
				c.ValidArgsFunction = records
			}
		case "serve":
			c.RegisterFlagCompletionFunc("from", records)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// exampleCompletion adds cobra's completion command now, to give it and
// its shells examples (cobra's own help has none).
func exampleCompletion(root *cobra.Command) {
	root.InitDefaultCompletionCmd()
	for _, c := range root.Commands() {
		if c.Name() != "completion" {
			continue
		}
		c.Example = `  source <(drip completion bash)
  drip completion zsh > "${fpath[1]}/_drip"
  drip completion fish > ~/.config/fish/completions/drip.fish`
		for _, sh := range c.Commands() {
			switch sh.Name() {
			case "bash":
				sh.Example = "  source <(drip completion bash)\n  drip completion bash > /etc/bash_completion.d/drip"
			case "zsh":
				sh.Example = `  drip completion zsh > "${fpath[1]}/_drip"`
			case "fish":
				sh.Example = "  drip completion fish > ~/.config/fish/completions/drip.fish"
			case "powershell":
				sh.Example = "  drip completion powershell | Out-String | Invoke-Expression"
			}
		}
	}
}
