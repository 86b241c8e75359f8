package main

import (
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// TestGroupCommandsRefuseAnUnknownSubcommand: every command that only
// groups others (fixtures, export, completion) refuses a word that names
// none of them with exit 2, as the root does, instead of printing its help
// and exiting 0; alone it still prints its help.
func TestGroupCommandsRefuseAnUnknownSubcommand(t *testing.T) {
	var groups []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasParent() && c.HasSubCommands() {
			groups = append(groups, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	if len(groups) < 3 {
		t.Fatalf("found %d group commands, want fixtures, export and completion at least", len(groups))
	}
	for _, g := range groups {
		path := strings.Fields(g.CommandPath())[1:]
		code, stdout, stderr := drip(t, append(path, "nosuchthing")...)
		want := `unknown command "nosuchthing" for "` + g.CommandPath() + `"`
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s nosuchthing: exit %d, want %d and %q; stdout:\n%s\nstderr:\n%s", g.CommandPath(), code, exitUsage, want, stdout, stderr)
		}
		if code, stdout, _ := drip(t, path...); code != exitOK || !strings.Contains(stdout, "Available Commands") {
			t.Errorf("%s alone: exit %d, want 0 and its help:\n%s", g.CommandPath(), code, stdout)
		}
	}
	if _, _, stderr := drip(t, "fixtures", "srve"); !strings.Contains(stderr, "Did you mean this?\n\tserve") {
		t.Errorf("fixtures srve suggests no serve:\n%s", stderr)
	}
}

// TestASchemelessURLIsEchoedWithTheOneMeant: a host:port typed without
// http:// is quoted as typed, with the URL it likely means, by every
// command's URL (the run target, --upstream, --against); one that may
// hold a secret is still not echoed.
func TestASchemelessURLIsEchoedWithTheOneMeant(t *testing.T) {
	rec := t.TempDir() + "/rec.jsonl"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "127.0.0.1:18000"}, `bad URL "127.0.0.1:18000": no scheme: want http(s)://host[:port][/path], e.g. http://127.0.0.1:18000`},
		{[]string{"run", "localhost:18000/v1"}, `e.g. http://localhost:18000/v1`},
		{[]string{"watch", "127.0.0.1:18000", "--no-tui"}, `e.g. http://127.0.0.1:18000`},
		{[]string{"record", "--upstream", "127.0.0.1:18089"}, `--upstream "127.0.0.1:18089": no scheme: want http(s)://host[:port][/path], e.g. http://127.0.0.1:18089`},
		{[]string{"replay", rec, "--against", "127.0.0.1:18089"}, `--against "127.0.0.1:18089": no scheme: want http(s)://host[:port][/path], e.g. http://127.0.0.1:18089`},
		{[]string{"run", "u:sk-SECRET@127.0.0.1:1"}, `bad URL (not shown: it may hold user info)`},
		{[]string{"run", "127.0.0.1:1/v1?key=sk-SECRET"}, `bad URL "(unparseable URL)"`},
	} {
		code, _, stderr := drip(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "SECRET") {
			t.Errorf("%q: exit %d, want %d and %q without the secret; stderr:\n%s", tc.args, code, exitUsage, tc.want, stderr)
		}
	}
}
