package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/userfile"
	"github.com/driplab/drip/probe"
)

// shapeFlags shape the request the way curl and AIPerf users expect. They
// give a body inline (-d), merge fields into the generated body
// (--extra-body), and make synthetic prompts of a length (--input-tokens,
// --output-tokens).
type shapeFlags struct {
	data         string
	extraBody    string
	inputTokens  string
	outputTokens string
}

func (f *shapeFlags) registerBody(fs *pflag.FlagSet) {
	fs.StringVarP(&f.data, "data", "d", "", "send this JSON request body as is, as curl does: inline, @FILE, or - for stdin (--body FILE sends any bytes)")
	fs.StringVar(&f.extraBody, "extra-body", "", `JSON object merged into the generated body, e.g. '{"temperature":0,"ignore_eos":true}' (objects merge key by key)`)
}

func (f *shapeFlags) registerLengths(fs *pflag.FlagSet) {
	fs.StringVar(&f.inputTokens, "input-tokens", "", "synthetic prompts of about N tokens (N or N±SD, normal, seeded by --seed; a token is approximated by a word)")
	fs.StringVar(&f.outputTokens, "output-tokens", "", "ask for about N output tokens per prompt (N or N±SD; sets max_tokens; add --extra-body '{\"ignore_eos\":true}' to make the server produce them)")
}

// body reads -d as inline text, @file or - (stdin). It must be JSON, the
// body drip itself sends in every format. --body FILE sends any bytes,
// such as a raw or sse endpoint's own body.
func (f *shapeFlags) body(ctx context.Context, stdin io.Reader) ([]byte, error) {
	var b []byte
	var err error
	switch {
	case f.data == "-":
		if b, err = userfile.Read(ctx, "-", kindBodyStdin, stdin); err != nil {
			return nil, usageErr("-d -: %v", err)
		}
	case strings.HasPrefix(f.data, "@"):
		if b, err = userfile.Read(ctx, f.data[1:], kindBody, nil); err != nil {
			return nil, usageErr("-d @%v", err)
		}
	default:
		b = []byte(f.data)
	}
	if err := probe.CheckJSONBody(b); err != nil {
		return nil, usageErr("-d: %v", err)
	}
	return b, nil
}

// extra parses --extra-body.
func (f *shapeFlags) extra() (map[string]json.RawMessage, error) {
	var m map[string]json.RawMessage
	if err := json.Unmarshal([]byte(f.extraBody), &m); err != nil || m == nil {
		return nil, usageErr("--extra-body: want a JSON object such as '{\"temperature\":0}' (%v)", err)
	}
	return m, nil
}

// applyLengths fills the plan's prompts from --input-tokens and their
// max_tokens from --output-tokens, once the seed is known.
func (f *shapeFlags) applyLengths(req *requestFlags, p *probe.Plan, explicitPrompts bool) error {
	if err := p.ApplyLengths(f.inputTokens, f.outputTokens, explicitPrompts, req.maxTokens > 0); err != nil {
		return usageErr("%v", err)
	}
	return nil
}
