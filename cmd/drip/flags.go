package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/awsauth"
	"github.com/driplab/drip/internal/cliconv"
	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/internal/userfile"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// requestFlags are the request flags shared by every command that streams.
type requestFlags struct {
	prompts     []string // -p, in order
	promptFiles []string
	models      []string // -m, in order, which watch and run pair with URLs (targets.go)
	maxTokens   int
	headers     []string
	bodyFile    string
	format      string
	timeout     time.Duration
	idleTimeout time.Duration
	connect     time.Duration
	stall       time.Duration
	keepRequest bool
	noStreamID  bool
	follow      bool
	bounds      boundFlags
	aws         awsauth.Options
	shape       shapeFlags
	tls         probe.TLSFiles
	stderr      io.Writer // where a completed base URL and a model the URL overrides are said, or nil for nowhere
}

func (f *requestFlags) register(fs *pflag.FlagSet) {
	fs.StringArrayVarP(&f.prompts, "prompt", "p", nil, "a prompt, sent as one user message (repeatable with drip run; default: a built-in question)")
	fs.StringArrayVar(&f.promptFiles, "prompt-file", nil, "prompts from a file: a text file is one prompt, a .jsonl file holds {\"id\",\"prompt\"[,\"max_tokens\"]} lines (repeatable)")
	fs.StringArrayVarP(&f.models, "model", "m", nil, "model name to ask for (watch and run: once for every URL, once per URL, or several with one URL for a target per model)")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "cap on output tokens (0: the server's default)")
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "extra request header 'Name: value' (repeatable); without one, the format's key comes from OPENAI_API_KEY, ANTHROPIC_API_KEY, GEMINI_API_KEY or HF_TOKEN (tgi), and Bedrock is signed from the AWS credential chain")
	fs.StringVar(&f.bodyFile, "body", "", "send this file as the request body, as is, any bytes (-d takes JSON); -p, --prompt-file and --max-tokens are refused with it")
	f.shape.registerBody(fs)
	fs.StringVar(&f.format, "format", "auto", "wire format: auto or one of "+strings.Join(adapters.Names(), ", "))
	fs.DurationVar(&f.timeout, "timeout", probe.DefaultTimeout, "total time one stream may take")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", probe.DefaultIdleTimeout, "longest silence allowed before headers or between reads")
	fs.DurationVar(&f.connect, "connect-timeout", probe.DefaultConnectTimeout, "time allowed to connect (TCP and TLS)")
	fs.DurationVar(&f.stall, "stall", time.Duration(stats.DefaultStall)*time.Millisecond, "a gap between content frames this long or longer is a stall")
	fs.BoolVar(&f.keepRequest, "keep-request", false, "store the request body in each record (never credentials)")
	fs.BoolVar(&f.noStreamID, "no-stream-id", false, "send no "+record.StreamHeader+" header (by default each request carries its stream's id, for drip hops to match a relay's record with this one)")
	f.bounds.register(fs, boundStops)
	fs.BoolVar(&f.follow, "follow-redirects", false, "follow a 307/308 redirect to another origin, sending it no credential header (same-origin ones are always followed)")
	fs.StringVar(&f.aws.Region, "aws-region", "", "AWS region for SigV4 (default: from the Bedrock host, else AWS_REGION)")
	fs.StringVar(&f.aws.Profile, "aws-profile", "", "AWS shared-config profile for SigV4 credentials (default: the default chain)")
	fs.BoolVar(&f.aws.SigV4, "aws-sigv4", false, "sign with SigV4 even when the host is not an AWS one (Bedrock behind a proxy)")
	registerTLS(fs, &f.tls)
	registerNoBuffer(fs)
}

// boundFlags are --max-frames and --max-bytes, the bounds on one stream
// that drip run, replay and record share. They have one text and one check.
type boundFlags struct {
	frames int
	bytes  string
}

// What happens past a bound differs. run and replay stop the stream, and
// record's client still gets all of it.
const (
	boundStops   = "past it the stream stops (recorded incomplete, error class limit)"
	boundPassing = "past it the client still gets the rest (the record is marked limit)"
)

func (b *boundFlags) register(fs *pflag.FlagSet, past string) {
	fs.IntVar(&b.frames, "max-frames", probe.DefaultMaxFrames, "frames kept of one stream; "+past)
	fs.StringVar(&b.bytes, "max-bytes", "64MiB", "body kept of one stream, e.g. 512KiB, 64MiB, 1GiB; "+past)
}

// check returns the bounds, or a usage error naming the flag.
func (b *boundFlags) check() (frames int, bytes int64, err error) {
	if err := intRange("--max-frames", b.frames, 1, maxFramesCap); err != nil {
		return 0, 0, err
	}
	if bytes, err = cliconv.ParseSize("--max-bytes", b.bytes); err != nil {
		return 0, 0, usageErr("%v", err)
	}
	return b.frames, bytes, nil
}

// stdin is where -d - reads the body. Tests replace it.
var stdin io.Reader = os.Stdin

// The kinds of file drip run's flags name, each read whole (userfile).
// A request body (--body, -d @FILE, -d -) may be up to what drip record
// keeps of one. A merge --summaries input may be far above a summary of
// thousands of prompts.
var (
	kindBody      = userfile.Kind{What: "a request body", Limit: 32 << 20}
	kindBodyStdin = userfile.Kind{What: kindBody.What, Limit: kindBody.Limit, Stdin: true}
)

// body fills the target's fixed body (--body, -d) or the fields merged
// into the generated one (--extra-body).
func (f *requestFlags) body(ctx context.Context, t *probe.Target) error {
	var err error
	switch {
	case f.bodyFile != "" && f.shape.data != "":
		return usageErr("--body and -d both give the request body: pick one")
	case f.shape.extraBody != "" && (f.bodyFile != "" || f.shape.data != ""):
		return usageErr("--extra-body merges into the body drip generates; with --body or -d, put the fields in that body")
	case f.bodyFile != "":
		if t.Body, err = userfile.Read(ctx, f.bodyFile, kindBody, nil); err != nil {
			return usageErr("--body %v", err)
		}
	case f.shape.data != "":
		t.Body, err = f.shape.body(ctx, stdin)
	case f.shape.extraBody != "":
		t.Extra, err = f.shape.extra()
	}
	return err
}

// fixedBody refuses the flags a fixed body (--body, -d) makes moot, as it
// is sent as is. -p, --prompt-file and --max-tokens would change nothing,
// and -m only the URL, yet all would be recorded as the workload. The
// records name the body's own "model" when it has one.
func (f *requestFlags) fixedBody(t *probe.Target, rawURL string) error {
	if t.Body == nil {
		return nil
	}
	flag := "-d"
	if f.bodyFile != "" {
		flag = "--body"
	}
	switch {
	case len(f.prompts) > 0 || len(f.promptFiles) > 0:
		return usageErr("-p/--prompt-file and %s: the body is sent as is, with its own messages; drop -p/--prompt-file or put the prompt in the body", flag)
	case f.maxTokens != 0:
		return usageErr("--max-tokens and %s: the body is sent as is; put the cap in the body (max_tokens)", flag)
	}
	if err := t.TakeBodyModel(rawURL, flag); err != nil {
		return usageErr("%v", err)
	}
	return nil
}

// errJSONOneTarget is run's and watch's refusal of --json with several
// targets, because --json prints one run's summary.
var errJSONOneTarget = usageErr("--json prints one run's summary: with several targets use --out and drip compare --json on the files")

// listenOn listens on a flag's address. An address that is not a host and
// port is a usage error. One that cannot be had (in use, not this host's)
// is exit 3. Both errors name the flag.
func listenOn(flag, addr string) (net.Listener, error) {
	if err := cliconv.CheckAddr(flag, addr); err != nil {
		return nil, usageErr("%v", err)
	}
	ln, err := net.Listen("tcp", addr)
	var op *net.OpError
	if errors.As(err, &op) {
		err = op.Err // `bind: address already in use`, without `listen tcp ADDR`
	}
	if err != nil {
		return nil, cannotErr(fmt.Errorf("%s %s: %w", flag, sanitize.Line(addr), err))
	}
	return ln, nil
}

// dial connects every stream drip sends. In the binary it is nil, which
// means TCP. Tests point it at an in-memory fixture server (internal/memnet)
// so they run under testing/synctest.
var dial probe.DialFunc

// build turns the flags and a URL into a probe target and options, for a
// command that takes one model.
func (f *requestFlags) build(ctx context.Context, rawURL string) (probe.Target, probe.Options, error) {
	if len(f.models) > 1 {
		return probe.Target{}, probe.Options{}, usageErr("-m given %s: this command takes one model", textfmt.Times(len(f.models)))
	}
	model := ""
	if len(f.models) == 1 {
		model = f.models[0]
	}
	return f.buildFor(ctx, rawURL, model)
}

// buildFor turns the flags, a URL and a model into a probe target and
// options.
func (f *requestFlags) buildFor(ctx context.Context, rawURL, model string) (probe.Target, probe.Options, error) {
	t, err := f.target(ctx, rawURL, model)
	if err != nil {
		return probe.Target{}, probe.Options{}, err
	}
	o, err := f.options(ctx)
	if err != nil {
		return probe.Target{}, probe.Options{}, err
	}
	if o.TLS != nil && o.TLS.InsecureSkipVerify && strings.HasPrefix(t.URL, "http://") {
		// Plain http has no certificate, so -k skips nothing. A warning that
		// one went unverified would be false.
		o.TLS = o.TLS.Clone()
		o.TLS.InsecureSkipVerify = false
		fmt.Fprintf(f.notes(), "drip: -k/--insecure: %s is plain http, with no certificate to verify\n", probe.RedactURL(t.URL))
	}
	return t, o, nil
}

// target is the request the flags, a URL and a model describe.
func (f *requestFlags) target(ctx context.Context, rawURL, model string) (probe.Target, error) {
	if f.format != "" && f.format != adapters.Auto.Name {
		if _, err := adapters.Resolve(f.format); err != nil {
			return probe.Target{}, usageErr("--format: %v", err)
		}
	}
	if _, err := strconv.ParseFloat(rawURL, 64); err == nil {
		// oha's and hey's -q takes a rate. drip's is --quiet and takes none,
		// so the rate arrives here as a target.
		return probe.Target{}, usageErr("%q is a number, not a URL: for a rate of requests per second (oha's and hey's -q) write --rate %s; drip's -q is --quiet and takes no value", rawURL, rawURL)
	}
	u, format, err := probe.ResolveEndpoint(rawURL, f.format, model)
	if err != nil {
		return probe.Target{}, usageErr("%v", err)
	}
	f.sayBaseURL(rawURL, u, format)
	if f.bodyFile == "" && f.shape.data == "" { // a fixed body's model is TakeBodyModel's to settle
		model = f.endpointModel(u, format, model)
	}
	set, err := f.promptSet(ctx)
	if err != nil {
		return probe.Target{}, err
	}
	t := probe.Target{URL: u, Format: format, Request: adapters.Request{Model: model, Prompt: set[0].Text, MaxTokens: f.maxTokens}}
	if t.Header, err = probe.ParseHeaders(f.headers); err != nil {
		return probe.Target{}, usageErr("%v", err)
	}
	if t.Header.Get("User-Agent") == "" {
		t.Header.Set("User-Agent", userAgent) // so server logs can tell drip's traffic apart
	}
	if t.Sign, err = f.aws.Signer(t.URL, t.Format.Name); err != nil {
		return probe.Target{}, usageErr("%v", err)
	}
	if err := f.body(ctx, &t); err != nil {
		return probe.Target{}, err
	}
	if err := f.fixedBody(&t, rawURL); err != nil {
		return probe.Target{}, err
	}
	if t.Request.Model == "" {
		t.Request.Model = probe.ModelFromURL(u, format)
	}
	return t, nil
}

// notes is where a completed base URL and a model the URL overrides are
// said. That is stderr, or nowhere when the command set none.
func (f *requestFlags) notes() io.Writer {
	if f.stderr == nil {
		return io.Discard
	}
	return f.stderr
}

// sayBaseURL says that a base URL was completed to the format's
// endpoint, so a 404 there is not a mystery.
func (f *requestFlags) sayBaseURL(rawURL, endpoint string, format *adapters.Format) {
	raw, err1 := url.Parse(rawURL)
	full, err2 := url.Parse(endpoint)
	if err1 == nil && err2 == nil && probe.IsBaseURL(raw) && raw.Path != full.Path {
		fmt.Fprintf(f.notes(), "drip: %s is a base URL: sending to %s, %s's endpoint\n", probe.RedactURL(rawURL), probe.RedactURL(endpoint), format.Name)
	}
}

// endpointModel is the model a request asks for. The one its endpoint's
// path names (Gemini, Bedrock) wins over -m, as it is what the server is
// asked for. A warning says so when -m names another.
func (f *requestFlags) endpointModel(endpoint string, format *adapters.Format, model string) string {
	named := probe.ModelFromURL(endpoint, format)
	if named == "" {
		return model
	}
	if model != "" && model != named {
		fmt.Fprintf(f.notes(), "drip: warning: -m %s ignored: the URL asks for model %s, and the records name it\n", sanitize.Line(model), sanitize.Line(named))
	}
	return named
}

// options are the probe's timeouts and bounds the flags set.
func (f *requestFlags) options(ctx context.Context) (probe.Options, error) {
	if err := f.checkNumbers(); err != nil {
		return probe.Options{}, err
	}
	maxFrames, maxBytes, err := f.bounds.check()
	if err != nil {
		return probe.Options{}, err
	}
	tlsConf, err := f.tls.Config(ctx)
	if err != nil {
		return probe.Options{}, usageErr("%v", err)
	}
	return probe.Options{
		TLS:             tlsConf,
		ConnectTimeout:  f.connect,
		IdleTimeout:     f.idleTimeout,
		Timeout:         f.timeout,
		StallMS:         float64(f.stall) / float64(time.Millisecond),
		KeepRequest:     f.keepRequest,
		NoStreamID:      f.noStreamID,
		Dial:            dial,
		FollowRedirects: f.follow,
		MaxFrames:       maxFrames,
		MaxBytes:        maxBytes,
	}, nil
}

// checkNumbers checks the numeric request flags, naming the first bad one.
func (f *requestFlags) checkNumbers() error {
	for _, d := range []struct {
		flag string
		v    time.Duration
	}{{"--stall", f.stall}, {"--timeout", f.timeout}, {"--idle-timeout", f.idleTimeout}, {"--connect-timeout", f.connect}} {
		if d.v <= 0 {
			return usageErr("%s %v: want a positive duration, e.g. 250ms or 30s", d.flag, d.v)
		}
	}
	return intRange("--max-tokens", f.maxTokens, 0, maxCount)
}

// promptSet is every prompt -p and --prompt-file name, in order
// (probe.PromptSet).
func (f *requestFlags) promptSet(ctx context.Context) ([]probe.Prompt, error) {
	set, err := probe.PromptSet(ctx, f.prompts, f.promptFiles)
	if err != nil {
		return nil, usageErr("%v", err)
	}
	return set, nil
}
