package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"github.com/driplab/drip/internal/userfile"
	"github.com/driplab/drip/probe"
)

// shapeFlags shape the request the way curl and AIPerf users expect: a
// body given inline (-d), fields merged into the generated body
// (--extra-body), and synthetic prompts of a length (--input-tokens,
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

// body reads -d: inline, @file or - (stdin). It must be JSON, the body
// drip itself sends in every format; --body FILE sends any bytes (a raw
// or sse endpoint's own body).
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
	if len(bytes.TrimSpace(b)) == 0 {
		return nil, usageErr("-d: the body is empty")
	}
	if !json.Valid(b) {
		var v any
		return nil, usageErr("-d: the body is not JSON (%v); -d takes a JSON body, --body FILE sends any bytes as is", json.Unmarshal(b, &v))
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

// tokenLength is N or N±SD.
type tokenLength struct{ mean, sd float64 }

var tokenLengthRE = regexp.MustCompile(`^\s*([0-9]+)\s*(?:(?:±|\+-|\+/-)\s*([0-9]+))?\s*$`)

func parseTokenLength(flag, s string) (tokenLength, error) {
	m := tokenLengthRE.FindStringSubmatch(s)
	if m == nil {
		return tokenLength{}, usageErr("%s %q: want N or N±SD (N+-SD), e.g. 512 or 512±64", flag, s)
	}
	mean, _ := strconv.ParseFloat(m[1], 64)
	sd := 0.0
	if m[2] != "" {
		sd, _ = strconv.ParseFloat(m[2], 64)
	}
	if mean < 1 {
		return tokenLength{}, usageErr("%s %q: N must be at least 1", flag, s)
	}
	return tokenLength{mean, sd}, nil
}

// sample draws one length, at least 1.
func (l tokenLength) sample(r *rand.Rand) int {
	return max(1, int(math.Round(l.mean+l.sd*r.NormFloat64())))
}

// synthWords are short common words, each about one token for the usual
// tokenizers.
var synthWords = strings.Fields(`the of and to in is it you that he was for on are with as his they be at one
have this from or had by word but what some we can out other were all there when up use your how said an
each she which do their time if will way about many then them write would like so these her long make thing
see him two has look more day could go come did number sound no most people my over know water than call
first who may down side been now find any new work part take get place made live where after back little
only round man year came show every good me give our under name very through just form sentence great think
say help low line differ turn cause much mean before move right boy old too same tell does set three want air
well also play small end put home read hand port large spell add even land here must big high such follow act`)

// synthPrompts makes n seeded prompts of about l words each.
func synthPrompts(n int, l tokenLength, seed int64) []probe.Prompt {
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	out := make([]probe.Prompt, n)
	for i := range out {
		k := l.sample(r)
		words := make([]string, k)
		for j := range words {
			words[j] = synthWords[r.IntN(len(synthWords))]
		}
		out[i] = probe.Prompt{ID: fmt.Sprintf("synthetic-%d", i+1), Text: strings.Join(words, " ")}
	}
	return out
}

// maxSynthPrompts bounds the synthetic set: enough distinct prompts that a
// prefix cache does not serve every stream, few enough for the per-prompt
// table.
const maxSynthPrompts = 64

// applyLengths fills the plan's prompts from --input-tokens and their
// max_tokens from --output-tokens, once the seed is known.
func (f *shapeFlags) applyLengths(req *requestFlags, p *probe.Plan, explicitPrompts bool) error {
	r := rand.New(rand.NewPCG(uint64(p.Seed), 0x0a7))
	if f.inputTokens != "" {
		l, err := parseTokenLength("--input-tokens", f.inputTokens)
		if err != nil {
			return err
		}
		if explicitPrompts || p.Target.Body != nil {
			return usageErr("--input-tokens makes the prompts: it cannot be combined with -p, --prompt-file, --prompts, -d or --body")
		}
		n := maxSynthPrompts
		if p.Runs > 0 {
			n = min(p.Runs, maxSynthPrompts)
		}
		if l.sd == 0 {
			n = min(n, 8)
		}
		p.Prompts = synthPrompts(n, l, p.Seed)
	}
	if f.outputTokens != "" {
		l, err := parseTokenLength("--output-tokens", f.outputTokens)
		if err != nil {
			return err
		}
		if req.maxTokens > 0 || p.Target.Body != nil {
			return usageErr("--output-tokens sets max_tokens per prompt: drop --max-tokens, -d and --body")
		}
		for i := range p.Prompts {
			p.Prompts[i].MaxTokens = l.sample(r)
		}
	}
	return nil
}
