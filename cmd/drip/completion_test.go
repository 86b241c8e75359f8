package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// Shell completion offers drip's own values (cobra's __complete is what
// the generated bash/zsh/fish scripts call).
func TestCompletionOffersDripValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "demo", ""}, []string{"steady", "mid-sentence-stall", ":4"}},
		{[]string{"__complete", "run", "http://x", "--format", ""}, []string{"auto", "openai-chat", "anthropic", "ndjson"}},
		{[]string{"__complete", "watch", "http://x", "--format", "o"}, []string{"openai-chat", "ollama-chat"}},
		{[]string{"__complete", "view", ""}, []string{"jsonl", ":8"}},
		{[]string{"__complete", "compare", "a.jsonl", ""}, []string{"jsonl", ":8"}},
	} {
		code, stdout, stderr := drip(t, tc.args...)
		lines := strings.Split(stdout, "\n")
		for _, w := range tc.want {
			found := false
			for _, l := range lines {
				found = found || l == w || strings.HasPrefix(l, w+"\t")
			}
			if code != 0 || !found {
				t.Errorf("%v: exit %d, no %q in\n%s%s", tc.args, code, w, stdout, stderr)
			}
		}
	}
}

// TestEveryCommandHasAnExample: every command's --help teaches with at
// least one example, and every flag an example line gives a drip command
// exists on that command (export and cobra's completion commands had no
// example).
func TestEveryCommandHasAnExample(t *testing.T) {
	root := newRoot()
	root.InitDefaultVersionFlag() // cobra adds --version as it runs
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Hidden {
			return
		}
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s --help has no example", c.CommandPath())
		}
		for _, line := range strings.Split(c.Example, "\n") {
			fields := strings.Fields(line)
			if len(fields) < 2 || fields[0] != "drip" {
				continue // another tool's line
			}
			named, _, err := root.Find(fields[1:])
			if err != nil {
				t.Errorf("%s example %q: %v", c.CommandPath(), strings.TrimSpace(line), err)
				continue
			}
			for _, f := range fields[1:] {
				if f == "|" || f == "&&" || f == ">" {
					break
				}
				name, _, _ := strings.Cut(strings.TrimPrefix(f, "--"), "=")
				if strings.HasPrefix(f, "--") && name != "" && named.Flags().Lookup(name) == nil && named.InheritedFlags().Lookup(name) == nil {
					t.Errorf("%s example %q: %s has no flag --%s", c.CommandPath(), strings.TrimSpace(line), named.CommandPath(), name)
				}
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}
