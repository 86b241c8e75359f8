package main

import (
	"slices"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Every command that takes --fail-if (run, watch, compare and replay among
// them) lists in its --help the llm.* gate names it accepts: the same list,
// drip run's.
func TestFailIfCommandsListTheLLMGateNames(t *testing.T) {
	t.Parallel()
	var with []string
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Flags().Lookup("fail-if") != nil {
			with = append(with, c.CommandPath())
			if !strings.Contains(c.Long, gateAliasHelp) || !strings.Contains(c.Long, "llm.ttft-p95") {
				t.Errorf("%s --help takes --fail-if but does not list the llm.* names:\n%s", c.CommandPath(), c.Long)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	// The commands the issue names are among them.
	for _, name := range []string{"drip run", "drip watch", "drip compare", "drip replay"} {
		if !slices.Contains(with, name) {
			t.Errorf("%s has no --fail-if (commands with it: %v)", name, with)
		}
	}
}
