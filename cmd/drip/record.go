package main

import (
	"context"
	"io"
	"net"
	"os"
	"time"

	"github.com/charmbracelet/x/term"
	"github.com/spf13/cobra"

	"github.com/driplab/drip/internal/gctune"
	"github.com/driplab/drip/internal/pipeline"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/stats"
)

func newRecordCmd() *cobra.Command {
	var (
		listen, upstream, out string
		hopsAddr              string
		force                 bool
		stall, timeout, idle  time.Duration
		bounds                boundFlags
	)
	cmd := &cobra.Command{
		Use:     "record --upstream URL [--listen ADDR] [--out rec.jsonl]",
		Short:   "Record your clients' real traffic through a streaming proxy",
		Long:    recordLong,
		Example: recordExample,
		Args:    cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if upstream == "" {
				return usageErr("--upstream is required: the server to forward to, e.g. --upstream https://api.openai.com")
			}
			u, err := probe.ParseHTTPURL(upstream)
			if err != nil {
				return usageErr("--upstream %v", err)
			}
			for _, d := range []struct {
				flag string
				v    time.Duration
			}{{"--stall", stall}, {"--timeout", timeout}, {"--idle-timeout", idle}} {
				if d.v <= 0 {
					return usageErr("%s %s: must be positive", d.flag, d.v)
				}
			}
			maxFrames, mb, err := bounds.check()
			// A recording replaced would be traffic that may not come again.
			if err := pipeline.FirstErr(err, pipeline.CheckOutPath("--out", out, force)); err != nil {
				return err
			}
			o := relay.Options{
				Upstream: u, StallMS: float64(stall) / float64(time.Millisecond),
				Timeout: timeout, IdleTimeout: idle, MaxBytes: int(mb), MaxFrames: maxFrames, Live: hopsAddr != "",
			}
			return runRecorder(cmd.Context(), cmd.ErrOrStderr(), listen, out, hopsAddr, o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&listen, "listen", "127.0.0.1:4143", "address to listen on for the clients (port 0: any free port, printed)")
	f.StringVar(&upstream, "upstream", "", "the server to forward to, e.g. https://api.openai.com (required)")
	f.StringVar(&out, "out", "rec.jsonl", "write one record per exchange to this file (JSON Lines, mode 0600), each as it ends")
	f.DurationVar(&stall, "stall", time.Duration(stats.DefaultStall)*time.Millisecond, "a gap between content frames this long or longer is a stall")
	f.DurationVar(&timeout, "timeout", probe.DefaultTimeout, "total time one exchange may take")
	f.DurationVar(&idle, "idle-timeout", probe.DefaultIdleTimeout, "longest silence from the upstream before headers or between reads")
	f.StringVar(&hopsAddr, "hops-addr", "", "serve each stream's read times by its X-Drip-Stream id on this address (GET /hops/ID: times and byte counts, no body, no header value), for drip watch --relay; a port alone binds 127.0.0.1")
	bounds.register(f, boundPassing)
	registerForce(f, &force)
	return cmd
}

// recordLong is drip record's --help text.
var recordLong = `Listen on --listen and forward every request to --upstream unchanged; every
read from the upstream goes to the client at once (written and flushed, no
buffering). Each exchange becomes one drip record: the frames with their
upstream arrival times, the format detected from the stream, status and
tokens, and the request (method, path, body) so 'drip replay' can send it
again and 'drip fixtures serve --from' can serve it back.

Credentials are forwarded but never written: Authorization, x-api-key,
x-goog-api-key, api-key, cookies, AWS signature headers (x-amz-*), any
header or query parameter whose name looks secret, and URL user info are
dropped from the record and listed in its exchange.removed; where the
upstream echoes one back (an error quoting the key, JSON-escaped or not),
the record has '*' for each of its bytes. Proxy-Authorization is dropped and
listed too; as a hop-by-hop header it is not forwarded either. A redirect
goes to the client as it came: drip record follows none. In the request
body the record keeps (and a replay sends), the value of every JSON member
whose name looks secret (api_key, password, client_secret), at any depth,
the secret query values of URLs in it (a presigned X-Amz-Signature) and a
form's secret fields are REDACTED, the request's own keys starred; each is
listed in exchange.removed as "body NAME". The upstream gets the body as it
was sent.

Requests that do not stream are passed through and recorded without
frames (phase "passthrough"; no figure counts them). A compressed response
goes to the client as it came; gzip, deflate, br and zstd are decoded for
the record, any other encoding is kept as it came, without frames.
Per exchange the same bounds as drip run hold: --idle-timeout, --timeout,
--max-frames and --max-bytes; past the last two the record keeps what came
before (error class limit) and the client still gets all of it. A response
in more reads than --max-frames keeps the rest as one read, served back at
once, and is marked limit too, with the frames of the reads before it. A
request body over 32 MiB, or one that would take the bodies kept at once
past 256 MiB, is forwarded whole but not kept (exchange.body_omitted):
that exchange cannot be replayed.

No client holds drip record: each read of a request body and each write
of a response must be done within --idle-timeout (a client that stalls its
body is answered 408 and not recorded; one that stops reading is let go,
its stream recorded as canceled), as must a kept-alive connection's next
request; --timeout bounds the whole exchange, the client's side included.

A line on stderr counts the exchanges. Ctrl-C stops listening, cancels the
exchanges in flight (recorded as canceled, their clients' responses cut
off, not ended), waits on no client, and finishes writing the file; a
connection still open 5 s later is closed. A record that cannot be written
(a full disk) stops drip record at once the same way: it says so, and its
last line counts the exchanges not written.

Exit codes: 2 a usage error (a flag; an --out file that holds data,
without --force), 3 --listen cannot be had or a record could not be
written (after a signal too), 130 after Ctrl-C and 143 after SIGTERM, every
exchange that ended written.`

// recordExample is drip record's --help examples.
var recordExample = `  drip record --upstream https://api.openai.com --out rec.jsonl
  OPENAI_BASE_URL=http://127.0.0.1:4143/v1 python my_app.py   # in another shell
  drip record --listen 127.0.0.1:0 --upstream http://127.0.0.1:8089 --out rec.jsonl`

// runRecorder listens, opens --out and runs the proxy (relay.Serve) until
// ctx is done or a record cannot be written. It listens first, so an
// address in use does not cost the --out file it would have truncated.
func runRecorder(ctx context.Context, stderr io.Writer, listen, out, hopsAddr string, o relay.Options) error {
	gctune.ForForwarding() // as drip run does, since GC work on the forwarding path delays frames
	rec := relay.Recording{Out: out, Stderr: stderr, Live: stderr, Terminal: term.IsTerminal(os.Stderr.Fd())}
	if rec.Terminal {
		rec.Live = os.Stderr // drip's own line, whose \r sanitize would show as ^M
	}
	var err error
	if rec.Listener, err = listenOn("--listen", listen); err != nil {
		return err
	}
	defer rec.Listener.Close()
	if host, _, err := net.SplitHostPort(hopsAddr); err == nil && host == "" {
		hopsAddr = "127.0.0.1" + hopsAddr // a port alone binds loopback
	}
	if hopsAddr != "" {
		if rec.Hops, err = listenOn("--hops-addr", hopsAddr); err != nil {
			return err
		}
		defer rec.Hops.Close()
	}
	w, err := pipeline.JSONL("--out", out)
	if err != nil {
		return err
	}
	rec.Records = pipeline.ForFiles(w)
	return relay.Serve(ctx, rec, o)
}
