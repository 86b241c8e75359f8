// Command drip is a terminal instrument for streamed LLM responses.
package main

import (
	"errors"
	"fmt"
	"io"
	"os"
	"sync"
	"syscall"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/buildinfo"
	"github.com/driplab/drip/internal/cliconv"
	"github.com/driplab/drip/internal/interrupt"
	"github.com/driplab/drip/internal/netlog"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/internal/sanitize"
)

// Exit codes (docs/records.md, Exit codes) follow one policy, the pipeline's.
const (
	exitOK       = pipeline.ExitOK
	exitGate     = pipeline.ExitGate
	exitUsage    = pipeline.ExitUsage
	exitCannotGo = pipeline.ExitCannot
)

func usageErr(format string, a ...any) error { return pipeline.Usage(format, a...) }

func cannotErr(err error) error { return pipeline.Cannot(err) }

// errGateTripped is returned after the report when a --fail-if gate tripped.
var errGateTripped = pipeline.ErrGateTripped

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

func run(args []string, stdout, stderr io.Writer) int {
	ctx, caught, stop := interrupt.Catch()
	defer stop()
	netLog := netlog.Capture()

	// Every byte a command prints passes the sanitiser's backstop. Text
	// from servers and files cannot drive the terminal even where a view
	// forgot sanitize.Line. The full-screen views draw on the terminal
	// themselves, from fields they sanitise.
	stdout, stderr = sanitize.NewWriter(stdout), sanitize.NewWriter(stderr)
	root := newRoot()
	root.SetArgs(args)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	netLog.Warn(stderr)
	code := exitOK
	var ee *pipeline.ExitError
	switch {
	case err == nil:
	case errors.As(err, &ee):
		if ee != errGateTripped {
			fmt.Fprintln(stderr, "drip:", sanitize.Text(err.Error()))
		}
		code = ee.Code
	default:
		// Anything cobra reports itself is usage, such as an unknown flag, wrong
		// arguments or an unknown subcommand (cliconv's conventions).
		fmt.Fprintln(stderr, "drip:", sanitize.Text(err.Error()))
		code = exitUsage
	}
	// A run stopped by a signal says so in its exit, 128 + the signal's
	// number as a shell reports it, whatever the report found. drip record's
	// lost records are the exception, since the signal's code would hide them.
	if sig, ok := caught().(syscall.Signal); ok && !errors.As(err, new(relay.RecordsLost)) {
		return 128 + int(sig)
	}
	return code
}

// templateFuncs registers the template functions once. cobra keeps them
// in a map the whole process shares, and tests run commands in parallel.
var templateFuncs sync.Once

func newRoot() *cobra.Command {
	root := &cobra.Command{
		Use: "drip",
		Example: `  drip demo
  drip run http://localhost:8000 -m my-model --runs 10
  drip compare main.jsonl pr.jsonl --fail-if 'ttft.p95 > +10%'`,
		Short: "See where a streamed LLM response waits and stalls",
		Long: `drip timestamps every frame of a streamed LLM response as it arrives and
shows where the wait and the stalls are: time to first token, the gaps
between tokens, stalls in the middle of a sentence, and honest accounting of
failed and incomplete streams.

Start with 'drip demo' (no setup), then point 'drip run' at your endpoint.`,
		SilenceUsage:  true,
		SilenceErrors: true,
		Version:       version, // --version prints buildinfo.Full, through the template
	}
	templateFuncs.Do(func() {
		cobra.AddTemplateFunc("buildLine", func() string { return buildinfo.Full().String() })
	})
	root.SetVersionTemplate("{{buildLine}}\n")
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return usageErr("%v%s\nsee '%s --help'", cliconv.PlainFlagValue(err), cliconv.SuggestFlag(c.Flags(), err), c.CommandPath())
	})
	root.AddCommand(newRunCmd(), newDemoCmd(), newFixturesCmd(), newCalibrateCmd(), newCompareCmd(), newMergeCmd(), newWatchCmd(), newViewCmd(), newHopsCmd())
	root.AddCommand(newRecordCmd(), newReplayCmd(), newExportCmd()) // drip record and what uses a recording
	root.AddCommand(newVersionCmd(), newManCmd())
	addCompletions(root)
	cliconv.ExplainArgs(root)
	cliconv.RefuseUnknownSubcommands(root)
	return root
}

// helpWidth is the widest line of a command's --help text, so that it
// reads in an 80-column terminal and in the man pages made from it.
const helpWidth = 80
