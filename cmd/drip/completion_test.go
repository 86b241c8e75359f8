package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"unicode"
	"unicode/utf8"

	"github.com/spf13/cobra"
)

// Shell completion offers drip's own values (cobra's __complete is what
// the generated bash/zsh/fish scripts call).
func TestCompletionOffersDripValues(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "demo", ""}, []string{"steady", "mid-sentence-stall", ":4"}},
		{[]string{"__complete", "run", "http://x", "--format", ""}, []string{"auto", "openai-chat", "anthropic", "ndjson"}},
		{[]string{"__complete", "watch", "http://x", "--format", "o"}, []string{"openai-chat", "ollama-chat"}},
		{[]string{"__complete", "view", ""}, []string{"jsonl", ":8"}},
		{[]string{"__complete", "compare", "a.jsonl", ""}, []string{"jsonl", ":8"}},
		{[]string{"__complete", "export", "aiperf", ""}, []string{"jsonl", ":8"}},
		{[]string{"__complete", "fixtures", "serve", "--from", ""}, []string{"jsonl", ":8"}},
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
// least one example, every flag an example line gives a drip command
// exists on that command (export and cobra's completion commands had no
// example), long or short, and so does every flag its text names: on the
// command itself, or on the drip command the text quotes it with ('drip
// run --out'). No line of its text is wider than helpWidth.
func TestEveryCommandHasAnExample(t *testing.T) {
	t.Parallel()
	root := newRoot()
	root.InitDefaultVersionFlag() // cobra adds --version and --help as it runs
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.Name() == "help" || c.Hidden {
			return
		}
		c.InitDefaultHelpFlag()
		if strings.TrimSpace(c.Example) == "" {
			t.Errorf("%s --help has no example", c.CommandPath())
		}
		for _, line := range strings.Split(c.Example, "\n") {
			checkExample(t, root, c, line)
		}
		if c.Parent() == nil || c.Parent().Name() != "completion" { // cobra writes those
			for _, line := range strings.Split(c.Long, "\n") {
				if n := utf8.RuneCountInString(line); n > helpWidth {
					t.Errorf("%s --help: a line of %d columns, more than %d: %q", c.CommandPath(), n, helpWidth, line)
				}
			}
		}
		for _, m := range proseFlag.FindAllStringSubmatchIndex(c.Short+"\n"+c.Long, -1) {
			text := c.Short + "\n" + c.Long
			if err := proseFlagExists(root, c, text[:m[0]], text[m[2]:m[3]]); err != "" {
				t.Errorf("%s --help: %s", c.CommandPath(), err)
			}
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(root)
}

// checkExample checks that the drip command an example line of c runs
// exists and has every flag the line gives it.
func checkExample(t *testing.T, root, c *cobra.Command, line string) {
	t.Helper()
	fields := strings.Fields(line)
	if len(fields) < 2 || fields[0] != "drip" {
		return // another tool's line
	}
	named, _, err := root.Find(fields[1:])
	if err != nil {
		t.Errorf("%s example %q: %v", c.CommandPath(), strings.TrimSpace(line), err)
		return
	}
	named.InitDefaultHelpFlag()
	for _, f := range fields[1:] {
		if f == "|" || f == "&&" || f == ">" || f == "#" {
			break
		}
		if !flagExists(named, f) {
			t.Errorf("%s example %q: %s has no flag %s", c.CommandPath(), strings.TrimSpace(line), named.CommandPath(), f)
		}
	}
}

// flagExists says whether arg, when it is a flag (--name[=v], -x), is
// one of c's; any other word is not a flag and passes.
func flagExists(c *cobra.Command, arg string) bool {
	if name, ok := strings.CutPrefix(arg, "--"); ok {
		name, _, _ = strings.Cut(name, "=")
		return name == "" || c.Flags().Lookup(name) != nil || c.InheritedFlags().Lookup(name) != nil
	}
	if len(arg) == 2 && arg[0] == '-' && unicode.IsLetter(rune(arg[1])) {
		short := arg[1:]
		return c.Flags().ShorthandLookup(short) != nil || c.InheritedFlags().ShorthandLookup(short) != nil
	}
	return true
}

// proseFlag is a --flag in a command's text.
var proseFlag = regexp.MustCompile(`(?:^|[^\w-])--([a-z][a-z0-9-]*)`)

// otherTools are the commands of other tools whose flags drip's help
// quotes (export aiperf's hand-off, completion's install lines).
var otherTools = []string{"aiperf profile", "brew"}

// proseFlagExists checks a --name that c's text names after before: it
// belongs to the drip command quoted before it in its clause ('drip run
// --out', "drip calibrate --server-proc"), to another tool quoted so, or
// else to c. It returns what is wrong, or "".
func proseFlagExists(root, c *cobra.Command, before, name string) string {
	// The clause the flag stands in: from the last bracket or sentence.
	line := before
	for _, sep := range []string{"(", ". ", ": ", "; ", "\n\n"} {
		if i := strings.LastIndex(line, sep); i >= 0 {
			line = line[i+len(sep):]
		}
	}
	for _, tool := range otherTools {
		if strings.Contains(line+" ", tool+" ") {
			return ""
		}
	}
	target := c
	if i := strings.LastIndex(line, "drip "); i >= 0 {
		words := strings.Fields(strings.Trim(line[i+len("drip "):], "'`\""))
		if named, _, err := root.Find(words); err == nil {
			target = named
		}
	}
	target.InitDefaultHelpFlag()
	if !flagExists(target, "--"+name) {
		return fmt.Sprintf("names --%s, which %s has not", name, target.CommandPath())
	}
	return ""
}
