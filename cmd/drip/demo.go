package main

import (
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/probe"
)

func newDemoCmd() *cobra.Command {
	var (
		out  outputFlags
		runs int
	)
	cmd := &cobra.Command{
		Use:   "demo [scenario]",
		Short: "Watch drip measure a built-in stream: no endpoint, no key needed",
		Long: `Start the built-in fixture server in-process and measure one of its
scenarios. The default, mid-sentence-stall, streams words at a steady pace
with a 700 ms freeze in the middle of a sentence.

Scenarios: ` + strings.Join(fixtures.Names(), ", "),
		Args: cobra.MaximumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			name := fixtures.DefaultScenario
			if len(args) == 1 {
				name = args[0]
			}
			if fixtures.Lookup(name) == nil {
				return usageErr("unknown scenario %q; scenarios: %s", name, strings.Join(fixtures.Names(), ", "))
			}
			if err := out.parseGates(); err != nil {
				return err
			}
			srv := httptest.NewServer(fixtures.NewServer())
			defer srv.Close()
			t, o, err := fixtureTarget(srv.URL, name)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "drip demo: scenario %s on the in-process fixture server\n", name)
			plan := probe.Plan{Target: t, Options: o, Runs: runs, PromptID: "demo"}
			return runHeadless(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), plan, &out)
		},
	}
	out.register(cmd.Flags())
	cmd.Flags().IntVarP(&runs, "runs", "n", 1, "streams to measure")
	return cmd
}

// fixtureTarget asks the in-process fixture server for a scenario with the
// default request and options.
func fixtureTarget(baseURL, scenario string) (probe.Target, probe.Options, error) {
	u, f, err := probe.ResolveURL(baseURL, "auto")
	if err != nil {
		return probe.Target{}, probe.Options{}, cannotErr(err)
	}
	t := probe.Target{URL: u, Format: f, Request: adapters.Request{Model: scenario, Prompt: defaultPrompt}}
	return t, probe.Options{StallMS: probe.DefaultStall}, nil
}
