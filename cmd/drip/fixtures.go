package main

import (
	"context"
	"fmt"
	"net"
	"net/http"
	"time"

	"github.com/spf13/cobra"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/stats"
)

// fixturesServeFlags are drip fixtures serve's flags.
type fixturesServeFlags struct {
	addr, from string
	speed      float64
	jitter     time.Duration
	seed       int64 // drip run --seed's type
	slots      int
}

func newFixturesCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:     "fixtures",
		Example: fixturesExample,
		Short:   "The deterministic fixture server drip tests itself against",
	}
	var f fixturesServeFlags
	serve := &cobra.Command{
		Use:     "serve",
		Short:   "Serve the fixture scenarios over HTTP, for drip or any other tool",
		Long:    fixturesServeLong,
		Example: fixturesServeExample,
		Args:    cobra.NoArgs,
		RunE:    func(cmd *cobra.Command, _ []string) error { return runFixturesServe(cmd, &f) },
	}
	fs := serve.Flags()
	fs.StringVar(&f.addr, "addr", "127.0.0.1:8089", "address to listen on")
	fs.StringVar(&f.from, "from", "", "serve the exchanges of this recording (drip record --out) at their recorded cadence")
	fs.Float64Var(&f.speed, "speed", 1, "with --from: time scale, 2 serves twice as fast")
	fs.DurationVar(&f.jitter, "jitter", 0, "with --from: move each read by a seeded uniform amount within ±this")
	fs.Int64Var(&f.seed, "seed", 1, "with --from: seed of the jitter")
	fs.IntVar(&f.slots, "slots", 0, "serve at most this many streams at once, queueing the rest (0: no limit)")
	cmd.AddCommand(serve, newCalibrateServerCmd())
	return cmd
}

// runFixturesServe serves the scenarios, or a recording with --from,
// until Ctrl-C.
func runFixturesServe(cmd *cobra.Command, f *fixturesServeFlags) error {
	fs := cmd.Flags()
	switch {
	case f.from == "" && (fs.Changed("speed") || fs.Changed("jitter") || fs.Changed("seed")):
		return usageErr("--speed, --jitter and --seed shape a recording: add --from rec.jsonl")
	case f.slots < 0:
		return usageErr("--slots must not be negative (0: no limit)")
	case f.slots > maxInFlight:
		return intRange("--slots", f.slots, 0, maxInFlight)
	case !(f.speed >= minSpeed && f.speed <= maxSpeed) || f.jitter < 0: // NaN fails every comparison
		return usageErr("--speed must be positive (%v to %v) and --jitter not negative", minSpeed, maxSpeed)
	}
	stderr := cmd.ErrOrStderr()
	logf := func(format string, args ...any) { fmt.Fprintf(stderr, "drip fixtures: "+format+"\n", args...) }
	if f.from != "" {
		return serveRecording(cmd, f, logf)
	}
	ln, err := listenOn("--addr", f.addr)
	if err != nil {
		return err
	}
	fixtures.WriteIndex(cmd.OutOrStdout(), "http://"+ln.Addr().String())
	return serveUntilDone(cmd.Context(), ln, fixtures.Options{Slots: f.slots, Logf: logf}.Handler())
}

// serveRecording serves --from's exchanges at their recorded cadence.
func serveRecording(cmd *cobra.Command, f *fixturesServeFlags, logf func(string, ...any)) error {
	in, err := pipeline.Read(f.from, f.from, cmd.ErrOrStderr())
	if err != nil {
		return err
	}
	rs, err := fixtures.NewRecorded(in.Records, fixtures.RecordedOptions{Speed: f.speed, Jitter: f.jitter, Seed: uint64(f.seed), Logf: logf})
	if err != nil {
		return usageErr("--from %s: %v", f.from, err)
	}
	ln, err := listenOn("--addr", f.addr)
	if err != nil {
		return err
	}
	fmt.Fprintf(cmd.OutOrStdout(), "drip fixture server on http://%s serving %s from %s at speed %g, jitter ±%s (seed %d)\n",
		ln.Addr(), stats.Count(rs.Len(), "recorded exchange"), sanitize.Line(f.from), f.speed, f.jitter, f.seed)
	return serveUntilDone(cmd.Context(), fixtures.NoDelay(ln), rs)
}

// fixturesServeLong is drip fixtures serve's --help text.
var fixturesServeLong = `Serve deterministic LLM streams. Pick a scenario with the request's
model name (or ?scenario=NAME). A model that names no scenario (a real
model name, as in drip's documented examples) gets the default,
` + fixtures.DefaultScenario + `, and the server says so on stderr; a path no format
owns (/my/stream) is served as ` + fixtures.DefaultFormat + ` (?format=NAME picks any).
Every response names its scenario and format in the ` + fixtures.ScenarioHeader + ` and
` + fixtures.FormatHeader + ` headers. A model "NAME#tag" also logs the server's write
times. Every frame is flushed on its own. POST /fixtures/freeze?after=1s&for=2s
freezes every response, server-wide, for 2s starting 1s later.
?frame_delay=10ms on a request (or a Frame-Delay: 10ms header) spaces every
frame after the first content frame 10ms further apart: a slower
transport, time to first token untouched. ?start_delay=700ms (Start-Delay)
writes every frame 700ms later, the headers at once: a slower prefill.
?path_delay=5ms (Path-Delay) holds the headers too: a longer path.

With --from, serve a recording made by 'drip record' instead: each
response's bytes, status and content type as recorded, every read written
and flushed on its own at its recorded offset from the request's arrival (an
absolute schedule: a late wake-up delays one read, never the ones after it,
and two reads are never merged), so a client, an SDK or a UI meets the real
cadence offline. A read that starts 1 ms or more late is this machine's
doing, and the server says so on stderr per exchange. A request gets the
recording with the same body, path and query (credentials such as ?key=
left out), else the same body, else the same model and path, else the same
path, else the next in turn (said on stderr once per path); the response's
` + fixtures.MatchHeader + ` header names the rule: exact, body, model, path or turn.
--speed scales time (2: twice as fast); --jitter moves each read by a
seeded uniform amount within ±D, never before the read before it.

--slots N serves at most N streams at once and queues the rest in arrival
order, as a model server with a full batch does: a queued stream's time to
first token grows with the queue while its gaps stay those of the scenario,
so a sweep past N finds the knee.

Exit codes: 2 a usage error (a flag, a --from file that is missing or
holds no exchange 'drip record' wrote), 3 --addr cannot be had or --from
does not parse, 130 after Ctrl-C and 143 after SIGTERM.`

// fixturesExample is drip fixtures' --help examples.
var fixturesExample = `  drip fixtures serve --addr 127.0.0.1:8089`

// fixturesServeExample is drip fixtures serve's --help examples.
var fixturesServeExample = `  drip fixtures serve --addr 127.0.0.1:8089
  drip run http://127.0.0.1:8089 -m mid-sentence-stall
  drip fixtures serve --from rec.jsonl --addr 127.0.0.1:8090
  drip fixtures serve --from rec.jsonl --speed 2 --jitter 5ms --seed 7
  drip fixtures serve --addr 127.0.0.1:8089 --slots 4
  drip run http://127.0.0.1:8089 -m steady --concurrency 1,2,4,8,16 --runs-per-level 16
  curl -sN -D - http://127.0.0.1:8089/v1/chat/completions -d '{"model":"my-model"}'   # X-Drip-Scenario: mid-sentence-stall`

// serveUntilDone serves on ln until ctx is done. A failure to serve is
// exit 3.
func serveUntilDone(ctx context.Context, ln net.Listener, h http.Handler) error {
	if err := fixtures.Serve(ctx, ln, h); err != nil {
		return cannotErr(err)
	}
	return nil
}
