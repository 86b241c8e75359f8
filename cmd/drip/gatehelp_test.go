package main

import (
	"strings"
	"testing"
)

// drip run, watch, compare and replay take --fail-if, and each --help lists
// the llm.* gate names it accepts: the same list, drip run's.
func TestFailIfCommandsListTheLLMGateNames(t *testing.T) {
	root := newRoot()
	for _, name := range []string{"run", "watch", "compare", "replay"} {
		c, _, err := root.Find([]string{name})
		if err != nil || c.Name() != name || c.Flags().Lookup("fail-if") == nil {
			t.Errorf("drip %s: no such command with --fail-if (%v)", name, err)
			continue
		}
		if !strings.Contains(c.Long, gateAliasHelp) || !strings.Contains(c.Long, "llm.ttft-p95") {
			t.Errorf("drip %s --help takes --fail-if but does not list the llm.* names:\n%s", name, c.Long)
		}
	}
}
