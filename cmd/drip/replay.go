package main

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/spf13/cobra"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/awsauth"
	"github.com/driplab/drip/internal/compare"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/replay"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

// gateAliasHelp is the --help paragraph on the llm.* gate names.
var gateAliasHelp = "--fail-if also takes the llm.* names of recorded-traffic tools, bare\nnumbers in milliseconds (a time takes ns, us, ms, s, m, h as the duration\nflags do; docs/metrics.md maps every name):\n" + stats.GateAliasHelp()

// replayFlags are drip replay's flags.
type replayFlags struct {
	against             string
	headers             []string
	allowMethods        []string
	out                 string
	html                string
	failIf              []string
	asJSON, markdown    bool
	noTUI               bool
	concurrency         int
	rate                float64
	duration            time.Duration
	timeout, idle, conn time.Duration
	bounds              boundFlags
	aws                 awsauth.Options
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
--duration D cycles through the recording until D has passed.

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
	fs.StringVar(&f.against, "against", "", "the server to replay against, e.g. http://localhost:8000 (required)")
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "extra request header 'Name: value' (repeatable), e.g. a key the recording left out")
	fs.StringArrayVar(&f.allowMethods, "allow-method", nil, "also replay streams recorded with this method, e.g. PUT (repeatable; POST and GET always are)")
	fs.StringVar(&f.out, "out", "", "write the replayed streams' records to this file (JSON Lines, mode 0600)")
	fs.StringArrayVar(&f.failIf, "fail-if", nil, "exit 1 when the condition holds for the replay, e.g. 'ttft.p95 > +10%', 'failed > 0' (repeatable)")
	fs.BoolVar(&f.asJSON, "json", false, "print the comparison as one JSON object")
	fs.BoolVar(&f.markdown, "markdown", false, "print the comparison as Markdown")
	fs.BoolVar(&f.noTUI, "no-tui", false, "print the comparison even on a terminal")
	registerHTML(fs, &f.html)
	fs.IntVarP(&f.concurrency, "concurrency", "c", 0, "closed loop: keep this many streams in flight (default: the recorded spacing)")
	fs.Float64Var(&f.rate, "rate", 0, "open loop: start this many streams per second (default: the recorded spacing)")
	fs.DurationVar(&f.duration, "duration", 0, "cycle through the recording until this long has passed (default: each stream once)")
	fs.DurationVar(&f.timeout, "timeout", probe.DefaultTimeout, "total time one stream may take")
	fs.DurationVar(&f.idle, "idle-timeout", probe.DefaultIdleTimeout, "longest silence allowed before headers or between reads")
	fs.DurationVar(&f.conn, "connect-timeout", probe.DefaultConnectTimeout, "time allowed to connect (TCP and TLS)")
	f.bounds.register(fs, boundStops)
	fs.StringVar(&f.aws.Region, "aws-region", "", "AWS region for SigV4 (default: from the Bedrock host, else AWS_REGION)")
	fs.StringVar(&f.aws.Profile, "aws-profile", "", "AWS shared-config profile for SigV4 credentials")
	return cmd
}

func runReplay(cmd *cobra.Command, path string, f *replayFlags) error {
	if f.against == "" {
		return usageErr("--against is required: the server to replay the recording against")
	}
	if f.asJSON && f.markdown {
		return usageErr("--json and --markdown both write to stdout: pick one")
	}
	if err := pipeline.CheckOutPath("--out", f.out); err != nil {
		return err
	}
	gates, err := parseFailIf(f.failIf)
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
	streams := replay.Streams(in.Records, o.AllowMethods...)
	if len(streams) == 0 {
		return usageErr("%s: no recorded stream to replay, only %s", path, replay.NotReplayed(in.Records, o.AllowMethods...))
	}
	if o.Sign, err = f.aws.Signer(f.against, signedFormat(streams).Name); err != nil {
		return usageErr("%v", err)
	}
	stderr := cmd.ErrOrStderr()
	fmt.Fprintf(stderr, "drip replay: %s from %s → %s, paced by %s", stats.Count(len(streams), "recorded stream"),
		sanitize.Line(path), sanitize.Line(probe.RedactURL(f.against)), o.Policy())
	if not := replay.NotReplayed(in.Records, o.AllowMethods...); not != "" {
		fmt.Fprintf(stderr, " (not replayed: %s)", not)
	}
	fmt.Fprintln(stderr)
	if masked := replay.MaskedBodies(streams); masked != "" {
		fmt.Fprintln(stderr, "drip replay: note:", masked)
	}
	if sentTo, instead := replay.RepeatedBase(streams, f.against); sentTo != "" {
		fmt.Fprintf(stderr, "drip replay: warning: every recorded path already starts with --against's path, so the first is sent to %s; give the origin, --against %s, to send the recorded paths as they were\n",
			sanitize.Line(probe.RedactURL(sentTo)), sanitize.Line(probe.RedactURL(instead)))
	}
	pl, html, err := f.sinks()
	if err != nil {
		return err
	}
	defer pl.Close()
	defer html.Close()
	recorded := compare.Input{Label: "recorded", Source: path, Records: streams, Skipped: in.Skipped}
	if useTUI(&outputFlags{noTUI: f.noTUI, json: f.asJSON || f.markdown}) {
		return replayLive(cmd.Context(), cmd.OutOrStdout(), stderr, recorded, streams, o, gates, pl, html)
	}
	sayLag(stderr, o, replay.Run(pl.StopOnWriteError(cmd.Context()), streams, o, func(r *record.Record) {
		pl.Add(r)
		fmt.Fprintln(stderr, "  "+progressLine(r))
	}))
	return reportReplay(cmd.OutOrStdout(), recorded, pl, html, gates, f)
}

// sinks are where the replayed records go: kept for the comparison, and
// to --out; --html is opened too, before anything is sent.
func (f *replayFlags) sinks() (*pipeline.Pipeline, *pipeline.HTML, error) {
	pl := pipeline.ForFiles()
	pl.KeepRecords()
	if f.out != "" {
		s, err := pipeline.JSONL("--out", f.out)
		if err != nil {
			return nil, nil, err
		}
		pl.Attach(s)
	}
	html, err := openHTML(f.html, nil)
	if err != nil {
		pl.Close()
	}
	return pl, html, err
}

// reportReplay prints the comparison of the replay with the recording and
// judges the gates; a failed write of the replayed records is exit 3.
func reportReplay(out io.Writer, recorded compare.Input, pl *pipeline.Pipeline, html *pipeline.HTML, gates []stats.Gate, f *replayFlags) error {
	replayed := pl.Records()
	if len(replayed) == 0 {
		return firstErr(pl.Finish(), cannotErr(fmt.Errorf("no stream was replayed")))
	}
	c, err := compareReplay(recorded, compare.Input{Label: "replayed", Source: f.out, Records: replayed}, gates)
	if err != nil {
		return cannotErr(err)
	}
	if err := html.Comparison(c, nil); err != nil {
		return firstErr(pl.Finish(), err)
	}
	err = pipeline.ReportComparison(out, c, pipeline.Comparison{JSON: f.asJSON, Markdown: f.markdown})
	if werr := pl.Finish(); werr != nil {
		return werr
	}
	return firstErr(pl.NoneCompleted("replayed"), err)
}

// compareReplay compares a replay with its recording. The target differs
// by design (--against is another server), so it is the one workload
// difference not warned of; every other one still is.
func compareReplay(recorded, replayed compare.Input, gates []stats.Gate) (*compare.Comparison, error) {
	c, err := compare.New([]compare.Input{recorded, replayed}, compare.Options{Gates: gates})
	if err != nil {
		return nil, err
	}
	c.Workload = slices.DeleteFunc(c.Workload, func(d compare.Difference) bool { return d.Setting == compare.SettingTarget })
	return c, nil
}

func (f *replayFlags) options() (replay.Options, error) {
	o := replay.Options{
		Against: f.against, Header: http.Header{}, Concurrency: f.concurrency, Rate: f.rate, Duration: f.duration,
		Probe:        probe.Options{Timeout: f.timeout, IdleTimeout: f.idle, ConnectTimeout: f.conn},
		AllowMethods: upper(f.allowMethods),
	}
	if err := firstErr(intRange("--concurrency", f.concurrency, 0, maxInFlight), rateRange(f.rate)); err != nil {
		return o, err
	}
	var err error
	if o.Probe.MaxFrames, o.Probe.MaxBytes, err = f.bounds.check(); err != nil { // run's bounds, which probe.Stream applies
		return o, err
	}
	for _, h := range f.headers {
		name, value, err := probe.ParseHeader(h)
		if err != nil {
			return o, usageErr("%v", err)
		}
		o.Header.Add(name, value)
	}
	if err := o.Check(); err != nil {
		return o, usageErr("%v", err)
	}
	if f.timeout <= 0 || f.idle <= 0 || f.conn <= 0 {
		return o, usageErr("--timeout, --idle-timeout and --connect-timeout must be positive")
	}
	return o, nil
}

// signedFormat is a Bedrock format when the recording holds Bedrock
// streams (they get SigV4 on an AWS host), else the first stream's.
func signedFormat(streams []*record.Record) *adapters.Format {
	for _, r := range streams {
		if strings.HasPrefix(r.Format, "bedrock-") {
			return adapters.Lookup(r.Format)
		}
	}
	if f := adapters.Lookup(streams[0].Format); f != nil {
		return f
	}
	return adapters.Auto
}

// replayLive opens the compare screen with the recording as the baseline
// and the replay filling in as its streams end (redrawn at most once a
// second: each update recomputes the comparison and its bootstrap). Quitting
// stops the replay; the gates are judged on what was replayed, and stderr
// says how much that was.
func replayLive(ctx context.Context, out, stderr io.Writer, recorded compare.Input, streams []*record.Record, o replay.Options, gates []stats.Gate, pl *pipeline.Pipeline, html *pipeline.HTML) error {
	ctx, cancel := context.WithCancel(pl.StopOnWriteError(ctx))
	defer cancel()
	build := func(final bool) *compare.Comparison {
		return liveReplayComparison(recorded, pl.Records(), len(streams), o.Duration > 0, final, gates)
	}
	m := tui.NewCompare(ctx, build(false), tui.Config{Color: os.Getenv("NO_COLOR") == ""})
	prog := tea.NewProgram(m, tea.WithContext(ctx))
	var wg sync.WaitGroup
	ran := make(chan struct{})
	var st stats.RunStats
	wg.Go(func() {
		defer close(ran)
		st = replay.Run(ctx, streams, o, pl.Add)
	})
	wg.Go(func() { liveUpdates(ctx, prog, ran, build) })
	_, err := prog.Run()
	cut := !isClosed(ran)
	cancel()
	wg.Wait()
	m.Wait()
	if err := screenEnded(ctx, "compare screen", err); err != nil {
		return err
	}
	if err := pl.Finish(); err != nil {
		return err
	}
	sayLag(stderr, o, st)
	if cut {
		of := fmt.Sprintf(" of %d", len(streams))
		if o.Duration > 0 {
			of = " before --duration ended"
		}
		fmt.Fprintf(stderr, "drip replay: stopped on the screen after %s%s: the comparison and the gates judge those\n",
			stats.Count(len(pl.Records()), "replayed stream"), of)
	}
	final := build(true)
	return firstErr(html.Comparison(final, nil), pl.NoneCompleted("replayed"), pipeline.ComparisonVerdicts(out, final))
}

// sayLag tells how closely a paced replay kept to its schedule.
func sayLag(stderr io.Writer, o replay.Options, st stats.RunStats) {
	if lag := o.Lag(st); lag != "" {
		fmt.Fprintln(stderr, "drip replay:", lag)
	}
}

func isClosed(c <-chan struct{}) bool {
	select {
	case <-c:
		return true
	default:
		return false
	}
}

// liveReplayComparison is the recording beside what the replay has
// replayed so far (of total streams; cycling: --duration, no total), its
// banner without what the replay's progress explains until the end.
func liveReplayComparison(recorded compare.Input, recs []*record.Record, total int, cycling, final bool, gates []stats.Gate) *compare.Comparison {
	label := fmt.Sprintf("replayed %d of %d", len(recs), total)
	if cycling {
		label = fmt.Sprintf("replayed %d", len(recs))
	}
	if final && (cycling || len(recs) >= total) {
		label = "replayed" // else stopped on the screen: it keeps its "of total"
	}
	c, _ := compareReplay(recorded, compare.Input{Label: label, Records: recs}, gates)
	if c != nil && !final {
		compare.WhileMeasuring(c)
	}
	return c
}

// liveUpdates sends the screen a fresh comparison once a second while the
// replay runs, and the final one when it ends.
func liveUpdates(ctx context.Context, prog *tea.Program, ran <-chan struct{}, build func(bool) *compare.Comparison) {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-ran:
			prog.Send(tui.CompareUpdateMsg{C: build(true)})
			return
		case <-t.C:
			prog.Send(tui.CompareUpdateMsg{C: build(false)})
		}
	}
}

// upper is each method in upper case, as replay compares them: --allow-method
// put allows PUT.
func upper(methods []string) []string {
	out := make([]string, len(methods))
	for i, m := range methods {
		out[i] = strings.ToUpper(strings.TrimSpace(m))
	}
	return out
}
