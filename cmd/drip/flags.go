package main

import (
	"fmt"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
)

// requestFlags are the request flags shared by every command that streams.
type requestFlags struct {
	prompt      string
	model       string
	maxTokens   int
	headers     []string
	bodyFile    string
	format      string
	timeout     time.Duration
	idleTimeout time.Duration
	connect     time.Duration
	stall       time.Duration
	keepRequest bool
}

const defaultPrompt = "Explain in three short paragraphs why streamed responses can feel slow even when tokens per second look fine."

func (f *requestFlags) register(fs *pflag.FlagSet) {
	fs.StringVarP(&f.prompt, "prompt", "p", defaultPrompt, "the prompt, sent as one user message")
	fs.StringVarP(&f.model, "model", "m", "", "model name to ask for")
	fs.IntVar(&f.maxTokens, "max-tokens", 0, "cap on output tokens (0: the server's default)")
	fs.StringArrayVarP(&f.headers, "header", "H", nil, "extra request header 'Name: value' (repeatable); keys also come from OPENAI_API_KEY / ANTHROPIC_API_KEY")
	fs.StringVar(&f.bodyFile, "body", "", "send this file as the request body, as is")
	fs.StringVar(&f.format, "format", "auto", "wire format: auto or one of "+strings.Join(adapters.Names(), ", "))
	fs.DurationVar(&f.timeout, "timeout", probe.DefaultTimeout, "total time one stream may take")
	fs.DurationVar(&f.idleTimeout, "idle-timeout", probe.DefaultIdleTimeout, "longest silence allowed before headers or between reads")
	fs.DurationVar(&f.connect, "connect-timeout", probe.DefaultConnectTimeout, "time allowed to connect (TCP and TLS)")
	fs.DurationVar(&f.stall, "stall", time.Duration(probe.DefaultStall)*time.Millisecond, "a gap between content frames this long or longer is a stall")
	fs.BoolVar(&f.keepRequest, "keep-request", false, "store the request body in each record (never credentials)")
}

// build turns the flags and a URL into a probe target and options.
func (f *requestFlags) build(rawURL string) (probe.Target, probe.Options, error) {
	u, format, err := probe.ResolveURL(rawURL, f.format)
	if err != nil {
		return probe.Target{}, probe.Options{}, usageErr("%v", err)
	}
	t := probe.Target{
		URL:     u,
		Format:  format,
		Request: adapters.Request{Model: f.model, Prompt: f.prompt, MaxTokens: f.maxTokens},
		Header:  http.Header{},
	}
	for _, h := range f.headers {
		name, value, ok := strings.Cut(h, ":")
		if !ok || strings.TrimSpace(name) == "" {
			return t, probe.Options{}, usageErr("bad header %q: want 'Name: value'", h)
		}
		t.Header.Add(strings.TrimSpace(name), strings.TrimSpace(value))
	}
	if f.bodyFile != "" {
		if t.Body, err = os.ReadFile(f.bodyFile); err != nil {
			return t, probe.Options{}, usageErr("--body: %v", err)
		}
	}
	if f.stall <= 0 || f.timeout <= 0 || f.idleTimeout <= 0 || f.connect <= 0 || f.maxTokens < 0 {
		return t, probe.Options{}, usageErr("--stall, --timeout, --idle-timeout and --connect-timeout must be positive, --max-tokens not negative")
	}
	o := probe.Options{
		ConnectTimeout: f.connect,
		IdleTimeout:    f.idleTimeout,
		Timeout:        f.timeout,
		StallMS:        float64(f.stall) / float64(time.Millisecond),
		KeepRequest:    f.keepRequest,
	}
	return t, o, nil
}

// describe says what drip picked, for the user to check.
func describe(t probe.Target) string {
	return fmt.Sprintf("%s as %s", probe.RedactURL(t.URL), t.Format.Name)
}
