package cliconv

import (
	"bytes"
	"strings"
	"testing"

	"github.com/spf13/cobra"
)

// tree is drip's shape in small: a group (fixtures) of one command
// (serve) that takes no argument.
func tree() *cobra.Command {
	root := &cobra.Command{Use: "drip", SilenceUsage: true, SilenceErrors: true}
	group := &cobra.Command{Use: "fixtures"}
	group.AddCommand(&cobra.Command{Use: "serve", Args: cobra.NoArgs, RunE: func(*cobra.Command, []string) error { return nil }})
	root.AddCommand(group)
	ExplainArgs(root)
	RefuseUnknownSubcommands(root)
	root.SetOut(&bytes.Buffer{})
	return root
}

func TestCommandConventions(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string // "" : no error
	}{
		{[]string{"fixtures"}, ""}, // the group alone prints its help
		{[]string{"fixtures", "srve"}, "unknown command \"srve\" for \"drip fixtures\"\n\nDid you mean this?\n\tserve\nsee 'drip fixtures --help'"},
		{[]string{"fixtures", "serve", "x"}, "unknown command \"x\" for \"drip fixtures serve\"\nusage: drip fixtures serve [flags]\nsee 'drip fixtures serve --help'"},
	} {
		root := tree()
		root.SetArgs(tc.args)
		err := root.Execute()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%q: %v", tc.args, err)
		case tc.want != "" && (err == nil || !strings.HasPrefix(err.Error(), tc.want)):
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
}
