package main

import (
	"context"
	"io"
	"os"
	"sync"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/compare"
	"github.com/driplab/drip/internal/awsauth"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// gateAliasHelp is the --help paragraph on the llm.* gate names.
var gateAliasHelp = "--fail-if also takes the llm.* names of recorded-traffic tools, bare\nnumbers in milliseconds (a time takes ns, us, ms, s, m, h as the duration\nflags do; docs/metrics.md maps every name):\n" + stats.GateAliasHelp()

// replayFlags are drip replay's flags.
type replayFlags struct {
	o                replay.Options // --against, the pacing and the timeouts
	headers          []string
	allowMethods     []string
	out, html        string
	force            bool
	failIf           []string
	asJSON, markdown bool
	noTUI            bool
	bounds           boundFlags
	aws              awsauth.Options
}

// replayLong and replayExample are drip replay's --help.
var (
	replayLong = `Re-send the streaming requests a 'drip record' file holds to --against (each
recorded path joined to its URL: give the origin, not .../v1, as the
recorded paths hold the /v1), record the replayed streams, and report
replayed beside recorded for every figure: the change, marked ! when it is
10% or more worse, and ~ when a bootstrap interval of the p50 or p95
difference says it is within noise (as drip compare does, the recording as
the baseline). Exchanges that did not stream are not replayed; a stream
recorded as canceled (its client went away, or the recording stopped) is
hung up as long after its request was sent as it was then, so both sides
hold the same partial stream. Each stream is decoded in its recorded
format; one the server answers in another (an OpenAI chat recording
against an Anthropic server) fails with class decode, naming both.
Stalls are counted at each recorded stream's own threshold (drip record
--stall), so the two sides count them alike. Only streams sent with POST
or GET are replayed (a recording is a file anyone can hand over: a crafted
DELETE would be sent with your key); --allow-method PUT sends those too.
Every stream left out is said on stderr, with why.

Pacing: by default the recorded order and spacing; --concurrency N keeps N
in flight (closed loop), --rate R starts R per second (open loop);
--duration D cycles through the recording until D has passed (alone, it
repeats the recorded spacing: a recording that spans 0 ms is refused).

Credentials are never in a recording: give them with -H or the usual
environment variables (OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY;
AWS credentials sign Bedrock requests to an amazonaws.com host).

--fail-if takes absolute thresholds ('ttft.p95 > 800ms', 'failed > 0') and
thresholds relative to the recording ('ttft.p95 > +10%', 'gap.p99 >
+20ms'); the llm.* names work too (listed below). On a terminal it opens
the compare screen with the recording as the baseline (q stops the
replay there: the gates judge the streams replayed so far, and stderr says
how many); otherwise, or with --no-tui, --json or --markdown, it prints the
comparison.

Exit codes: 0 the replay ran and no gate tripped, 1 a gate tripped, 2 a
usage error (a flag, a missing file, a file with no recorded stream to
send: records 'drip record' did not make, exchanges that did not stream,
streams whose request body was too long to keep or whose method is not
replayed), 3 no replayed stream
completed, the file does not parse or holds no records, or the replay
could not be carried out.

` + gateAliasHelp
	replayExample = `  drip replay rec.jsonl --against http://localhost:8000
  drip replay rec.jsonl --against http://staging:8000 --concurrency 4 --duration 60s --out replayed.jsonl
  drip replay rec.jsonl --against http://localhost:8000 --fail-if 'ttft.p95 > +10%' --fail-if 'failed > 0'`
)

func newReplayCmd() *cobra.Command {
	var f replayFlags
	cmd := &cobra.Command{
		Use:     "replay REC.jsonl --against URL",
		Short:   "Send recorded requests again and compare the replay with the recording",
		Long:    replayLong,
		Example: replayExample,
		Args:    cobra.ExactArgs(1),
		RunE:    func(cmd *cobra.Command, args []string) error { return runReplay(cmd, args[0], &f) },
	}
	fs := cmd.Flags()
	fs.StringVar(&f.o.Against, "against", "", "the server to replay against, e.g. http://localhost:8000 (required)")
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "extra request header 'Name: value' (repeatable), e.g. a key the recording left out")
	fs.StringArrayVar(&f.allowMethods, "allow-method", nil, "also replay streams recorded with this method, e.g. PUT (repeatable; POST and GET always are)")
	fs.StringVar(&f.out, "out", "", "write the replayed streams' records to this file (JSON Lines, mode 0600)")
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "exit 1 when the condition holds for the replay, e.g. 'ttft.p95 > +10%', 'failed > 0' (repeatable)")
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison as one JSON object")
	fs.BoolVar(&f.markdown, "markdown", false, "print the comparison as Markdown")
	fs.BoolVar(&f.noTUI, "no-tui", false, "print the comparison even on a terminal")
	registerHTML(fs, &f.html)
	registerForce(fs, &f.force)
	fs.IntVarP(&f.o.Concurrency, "concurrency", "c", 0, "closed loop: keep this many streams in flight (default: the recorded spacing)")
	fs.Float64Var(&f.o.Rate, "rate", 0, "open loop: start this many streams per second (default: the recorded spacing)")
	fs.DurationVar(&f.o.Duration, "duration", 0, "cycle through the recording until this long has passed (default: each stream once)")
	fs.DurationVar(&f.o.Probe.Timeout, "timeout", probe.DefaultTimeout, "total time one stream may take")
	fs.DurationVar(&f.o.Probe.IdleTimeout, "idle-timeout", probe.DefaultIdleTimeout, "longest silence allowed before headers or between reads")
	fs.DurationVar(&f.o.Probe.ConnectTimeout, "connect-timeout", probe.DefaultConnectTimeout, "time allowed to connect (TCP and TLS)")
	f.bounds.register(fs, boundStops)
	fs.StringVar(&f.aws.Region, "aws-region", "", "AWS region for SigV4 (default: from the Bedrock host, else AWS_REGION)")
	fs.StringVar(&f.aws.Profile, "aws-profile", "", "AWS shared-config profile for SigV4 credentials")
	return cmd
}

func runReplay(cmd *cobra.Command, path string, f *replayFlags) error {
	if f.o.Against == "" {
		return usageErr("--against is required: the server to replay the recording against")
	}
	if f.asJSON && f.markdown {
		return usageErr("--json and --markdown both write to stdout: pick one")
	}
	if err := pipeline.CheckOutputs(f.force, pipeline.Output{Flag: "--out", Path: f.out}, pipeline.Output{Flag: "--html", Path: f.html}); err != nil {
		return err
	}
	gates, err := pipeline.ParseBaselineGates(f.failIf)
	if err != nil {
		return err
	}
	o, err := f.options()
	if err != nil {
		return err
	}
	in, err := pipeline.Read(path, "recorded", cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	streams, err := o.Replayable(in.Records)
	if err != nil {
		return usageErr("%s: %v", path, err)
	}
	if o.Sign, err = f.aws.Signer(f.o.Against, replay.SignedFormat(streams).Name); err != nil {
		return usageErr("%v", err)
	}
	stderr := cmd.ErrOrStderr()
	replay.Announce(stderr, path, in.Records, streams, o)
	s := replay.Session{Recorded: compare.Input{Label: "recorded", Source: path, Records: streams, Skipped: in.Skipped},
		Options: o, Gates: gates, Out: f.out, Format: comparisonFormat(f.asJSON, f.markdown)}
	if s.Records, s.HTML, err = f.sinks(); err != nil {
		return err
	}
	defer s.Records.Close()
	defer s.HTML.Close()
	if useTUI(&outputFlags{noTUI: f.noTUI, json: f.asJSON || f.markdown}) {
		return replayLive(cmd.Context(), cmd.OutOrStdout(), stderr, &s)
	}
	return s.Headless(cmd.Context(), cmd.OutOrStdout(), stderr)
}

// sinks are where the replayed records go. They are kept for the
// comparison and written to --out. --html is opened too, before anything
// is sent.
func (f *replayFlags) sinks() (*pipeline.Pipeline, *pipeline.HTML, error) {
	pl := pipeline.ForFiles()
	pl.KeepRecords()
	if err := pl.AttachFiles(f.out, ""); err != nil {
		return nil, nil, err
	}
	html, err := openHTML(f.html, nil)
	if err != nil {
		pl.Close()
	}
	return pl, html, err
}

// options are the replay's options, checked. They are the flags bound to
// them, -H's headers, the methods allowed and run's stream bounds.
func (f *replayFlags) options() (replay.Options, error) {
	o := f.o
	o.AllowMethods = replay.UpperMethods(f.allowMethods)
	if err := pipeline.FirstErr(intRange("--concurrency", o.Concurrency, 0, maxInFlight), rateRange(o.Rate)); err != nil {
		return o, err
	}
	var err error
	if o.Probe.MaxFrames, o.Probe.MaxBytes, err = f.bounds.check(); err != nil { // run's bounds, which probe.Stream applies
		return o, err
	}
	if o.Header, err = probe.ParseHeaders(f.headers); err != nil {
		return o, usageErr("%v", err)
	}
	if err := o.Check(); err != nil {
		return o, usageErr("%v", err)
	}
	return o, nil
}

// replayLive opens the compare screen with the recording as the baseline
// and the replay filling in as its streams end (each update recomputes
// the comparison and its bootstrap). Quitting stops the replay. The gates
// are judged on what was replayed, and stderr says how much that was.
func replayLive(ctx context.Context, stdout, stderr io.Writer, s *replay.Session) error {
	feed := tui.NewCompareFeedBy([]string{s.Recorded.Label, "replayed"}, func(runs [][]*record.Record, closed bool) *compare.Comparison {
		return s.Live(runs[1], closed)
	})
	for _, r := range s.Recorded.Records {
		feed.Add(0, r) // the status line counts the recording's streams too
	}
	var st stats.RunStats
	cut, err := runCompareScreen(s.Records.StopOnWriteError(ctx), feed, tui.Config{Color: os.Getenv("NO_COLOR") == ""}, func(ctx context.Context) {
		st = replay.Run(ctx, s.Recorded.Records, s.Options, func(r *record.Record) { s.Records.Add(r); feed.Add(1, r) })
	})
	if err != nil {
		return err
	}
	return s.Ended(stdout, stderr, st, cut)
}

// runCompareScreen runs the compare screen on feed while run measures, in
// a goroutine of its own, the feed closed when it returns. Leaving the
// screen cancels run and waits for it. cut says it had not ended.
func runCompareScreen(ctx context.Context, feed *tui.CompareFeed, cfg tui.Config, run func(context.Context)) (cut bool, err error) {
	rctx, cancel := context.WithCancel(ctx)
	var wg sync.WaitGroup
	wg.Go(func() { run(rctx); feed.Close() })
	err = runProgram(ctx, tui.NewLiveCompare(ctx, feed, cfg))
	cut = !feed.Closed()
	cancel()
	wg.Wait()
	return cut, err
}
