package main

import (
	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/pipeline"
)

func newHopsCmd() *cobra.Command {
	var asJSON, markdown bool
	cmd := &cobra.Command{
		Use:     "hops CLIENT.jsonl RELAY.jsonl [RELAY2.jsonl …] [--json|--markdown]",
		Short:   "Give every stall an owner: the upstream or the path, from a client's and a relay's records",
		Long:    hopsLong,
		Example: hopsExample,
		Args:    cobra.MinimumNArgs(2),
		RunE: func(cmd *cobra.Command, args []string) error {
			if asJSON && markdown {
				return usageErr("--json and --markdown: pick one")
			}
			in, err := pipeline.Read(args[0], args[0], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			rep, err := pipeline.ReadRelays(args[0], in.Records, args[1:], cmd.ErrOrStderr())
			if err != nil {
				return err
			}
			switch {
			case asJSON:
				return rep.JSON(cmd.OutOrStdout())
			case markdown:
				return rep.Markdown(cmd.OutOrStdout())
			}
			return rep.Text(cmd.OutOrStdout())
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print the report as one JSON object")
	cmd.Flags().BoolVar(&markdown, "markdown", false, "print the verdict and the per-stream table as Markdown")
	return cmd
}

// hopsLong is drip hops' --help text.
var hopsLong = `Put a client's records (drip run --out) beside a relay's (drip record
--out, the relay running next to the model server) and give every stall
the client saw an owner.

Streams are matched by the id drip run and drip watch send in
X-Drip-Stream (drip record keeps it), else by the request body, in order
(drip run --keep-request keeps the client's). Frames are aligned by their
content, byte by byte, so a hop that merges or splits frames is followed.
The hosts' clocks are never compared: every time is an offset on its own
host's clock.

  TTFT split     upstream = the relay's time to first content; path = the
                 client's TTFT less it. The same for the headers.
  path delay     per frame, the client's time less the relay's, relative
                 to the least of them: what the path added over its best.
  stall owner    upstream: the relay saw stalls inside the client's silence
                 and they explain all but less than a stall of it;
                 path: the relay saw none (the frames were on their way);
                 both: the relay saw some, and the path added a stall more.
                 Freezes (silences between content reads under the stall
                 threshold, as docs/delivery.md counts them: 50 ms and 4x
                 the stream's mean spacing) are owned the same way.

Exit codes: 2 a file that does not belong (a relay file none of whose
exchanges matches a client stream, a client file that is a relay's), named;
3 a file that cannot be read.`

// hopsExample is drip hops' --help examples.
var hopsExample = `  drip hops client.jsonl relay.jsonl
  drip hops client.jsonl relay-a.jsonl relay-b.jsonl --markdown`
