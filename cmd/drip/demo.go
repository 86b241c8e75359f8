package main

import (
	"fmt"
	"net/http/httptest"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// demoLong is drip demo's --help text.
var demoLong = `Start the built-in fixture server in-process and open the live view on one
of its scenarios. The default, mid-sentence-stall, streams words at a steady
pace with a 700 ms freeze in the middle of a sentence: watch it appear on
the timeline, in the text, in the clocks, the histogram and the heatmap.
Press r to run it again, n for the next scenario, ? for every key.

Without a terminal, or with --no-tui or --json, it measures --runs streams
and prints the headless report.

` + strings.Join(textfmt.Wrap("Scenarios: "+strings.Join(fixtures.Names(), ", "), helpWidth), "\n") + "\n\n" + gateAliasHelp

// demoExample is drip demo's --help examples.
var demoExample = `  drip demo                      # the live view on mid-sentence-stall
  drip demo buffered-burst       # a proxy that buffers, seen from the client
  drip demo steady --no-tui -n 3 # the plain report of three streams`

func newDemoCmd() *cobra.Command {
	var (
		out  outputFlags
		runs int
	)
	cmd := &cobra.Command{
		Use:     "demo [scenario]",
		Example: demoExample,
		Short:   "Watch drip measure a built-in stream: no endpoint, no key needed",
		Long:    demoLong,
		Args:    cobra.MaximumNArgs(1),
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
			if useTUI(&out) {
				cpu := probe.StartCPUSampler() // one for every scenario's streams
				defer cpu.Stop()
				srcs, err := demoSources(srv.URL, name, cpu)
				if err != nil {
					return err
				}
				return runTUI(cmd.Context(), cmd.OutOrStdout(), tui.Config{Sources: srcs, StallMS: stats.DefaultStall}, &out)
			}
			if err := intRange("--runs", runs, 1, maxCount); err != nil {
				return err
			}
			t, o, err := fixtureTarget(srv.URL, name)
			if err != nil {
				return err
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "drip demo: scenario %s on the in-process fixture server\n", name)
			plan := probe.Plan{Target: t, Options: o, Runs: runs}
			return runHeadless(cmd.Context(), cmd.OutOrStdout(), cmd.ErrOrStderr(), plan, &out)
		},
	}
	out.register(cmd.Flags())
	cmd.Flags().IntVarP(&runs, "runs", "n", 1, "streams to measure (headless)")
	return cmd
}

// demoSources are the fixture scenarios as live-view sources, the chosen
// one first and the rest in their usual order, for n to cycle through,
// each stream's OS figures from cpu.
func demoSources(baseURL, first string, cpu *probe.CPUSampler) ([]tui.Source, error) {
	names := fixtures.Names()
	i := slices.Index(names, first)
	names = append(names[i:len(names):len(names)], names[:i]...)
	runID := probe.NewRunID()
	srcs := make([]tui.Source, len(names))
	for j, name := range names {
		t, o, err := fixtureTarget(baseURL, name)
		if err != nil {
			return nil, err
		}
		o.CPU = cpu
		srcs[j] = tui.StreamSource(name, runID, t, o)
	}
	return srcs, nil
}

// fixtureTarget asks the in-process fixture server for a scenario with the
// default request and options.
func fixtureTarget(baseURL, scenario string) (probe.Target, probe.Options, error) {
	u, f, err := probe.ResolveURL(baseURL, "auto")
	if err != nil {
		return probe.Target{}, probe.Options{}, cannotErr(err)
	}
	t := probe.Target{URL: u, Format: f, Request: adapters.Request{Model: scenario, Prompt: probe.DefaultPrompt}}
	return t, probe.Options{StallMS: stats.DefaultStall, Dial: dial}, nil
}
