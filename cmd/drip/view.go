package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/tui"
)

// viewLong is drip view's --help text.
var viewLong = `Read records written by 'drip run --out', 'drip watch --out' or the live
view's s key, and show them through the same views as a live stream, all
at once: the last record is the current run, earlier ones are the dimmer
rows and the heatmap's rows.
Every record is re-derived from its raw frame times as it is read.
With --relay (drip record's file of the same streams, as drip hops reads
it), each stall says its owner on the timeline and in the text ("⏸ 700ms
upstream", "⏸ 430ms path") and the hops panel takes the clocks' place.

Press [ and ] to show another stream of the file. On quit it prints the
file's summary; without a terminal, or with --no-tui or --json, it prints
only the summary. --html FILE also writes the report as one HTML file
(docs/html-report.md).`

// viewExample is drip view's --help examples.
var viewExample = `  drip view runs.jsonl
  drip view runs.jsonl --no-tui --json
  drip view runs.jsonl --no-tui --html report.html
  drip view client.jsonl --relay relay.jsonl`

func newViewCmd() *cobra.Command {
	var (
		out    outputFlags
		html   string
		relays []string
	)
	cmd := &cobra.Command{
		Use:     "view FILE.jsonl [--relay RELAY.jsonl]",
		Example: viewExample,
		Short:   "Open saved records in the live view's panels",
		Long:    viewLong,
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runView(cmd, args[0], &out, html, relays) },
	}
	cmd.Flags().StringArrayVar(&relays, "relay", nil, "a relay's record file of the same streams (drip record --out): each stall's owner, upstream or path (repeatable)")
	cmd.Flags().BoolVar(&out.noTUI, "no-tui", false, "print the summary even on a terminal")
	cmd.Flags().BoolVar(&out.json, "json", false, "print the summary as one JSON object on stdout")
	registerHTML(cmd.Flags(), &html)
	registerForce(cmd.Flags(), &out.force)
	return cmd
}

// runView is drip view. It shows the records on the screen, then prints
// their summary and writes --html's page.
func runView(cmd *cobra.Command, path string, out *outputFlags, htmlPath string, relays []string) error {
	if err := pipeline.CheckOutPath("--html", htmlPath, out.force); err != nil {
		return err
	}
	// The one reader of every command gives the same mistake the same exit.
	in, err := pipeline.Read(path, path, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	recs := in.Records
	stallMS := recs[len(recs)-1].StallMS
	rep, err := pipeline.ReadRelays(path, recs, relays, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	pl := pipeline.New(stallMS, nil)
	html, err := openHTML(htmlPath, pl)
	if err != nil {
		return err
	}
	defer html.Close()
	if useTUI(out) {
		cfg := tui.Config{Records: recs, File: path, StallMS: stallMS, Relay: rep.ByRecord(recs), Color: os.Getenv("NO_COLOR") == ""}
		if err := runProgram(cmd.Context(), tui.New(cmd.Context(), cfg)); err != nil {
			return err
		}
	}
	// The summary is printed after the screen too, as run and watch print
	// theirs, so the figures stay in the scrollback.
	for _, r := range recs {
		pl.Add(r)
	}
	if err := pl.Report(cmd.OutOrStdout(), cmd.ErrOrStderr(), pipeline.Run{Workload: compare.WorkloadOf(recs), JSON: out.json, HTML: html}); err != nil || rep == nil || out.json {
		return err
	}
	fmt.Fprintln(cmd.OutOrStdout())
	return rep.Text(cmd.OutOrStdout())
}
