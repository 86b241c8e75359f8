package probe

import (
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
)

// Length is a synthetic length in tokens, N or N±SD: drawn from a normal
// distribution, at least 1.
type Length struct{ mean, sd float64 }

var lengthRE = regexp.MustCompile(`^\s*([0-9]+)\s*(?:(?:±|\+-|\+/-)\s*([0-9]+))?\s*$`)

// ParseLength reads N or N±SD (N+-SD, N+/-SD).
func ParseLength(s string) (Length, error) {
	m := lengthRE.FindStringSubmatch(s)
	if m == nil {
		return Length{}, errors.New("want N or N±SD (N+-SD), e.g. 512 or 512±64")
	}
	mean, _ := strconv.ParseFloat(m[1], 64)
	sd := 0.0
	if m[2] != "" {
		sd, _ = strconv.ParseFloat(m[2], 64)
	}
	if mean < 1 {
		return Length{}, errors.New("the length must be at least 1 token")
	}
	return Length{mean, sd}, nil
}

// sample draws one length, at least 1.
func (l Length) sample(r *rand.Rand) int {
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

// maxSynthPrompts bounds the synthetic set: enough distinct prompts that a
// prefix cache does not serve every stream, few enough for the per-prompt
// table.
const maxSynthPrompts = 64

// SyntheticPrompts makes the seeded prompts of about l words each
// (--input-tokens) for a plan of runs streams (0: a duration): one per
// stream up to 64, and no more than 8 when every prompt has the same
// length.
func SyntheticPrompts(l Length, runs int, seed int64) []Prompt {
	n := maxSynthPrompts
	if runs > 0 {
		n = min(runs, maxSynthPrompts)
	}
	if l.sd == 0 {
		n = min(n, 8)
	}
	r := rand.New(rand.NewPCG(uint64(seed), 0x5eed))
	out := make([]Prompt, n)
	for i := range out {
		out[i] = Prompt{ID: fmt.Sprintf("synthetic-%d", i+1), Text: synthText(r, l.sample(r))}
	}
	return out
}

// synthText is n words drawn from r.
func synthText(r *rand.Rand, n int) string {
	words := make([]string, n)
	for j := range words {
		words[j] = synthWords[r.IntN(len(synthWords))]
	}
	return strings.Join(words, " ")
}

// SampleMaxTokens gives every prompt a max_tokens drawn from l
// (--output-tokens), seeded.
func SampleMaxTokens(prompts []Prompt, l Length, seed int64) {
	r := rand.New(rand.NewPCG(uint64(seed), 0x0a7))
	for i := range prompts {
		prompts[i].MaxTokens = l.sample(r)
	}
}

// ApplyLengths fills the plan's prompts from input (--input-tokens, N or
// N±SD) and their max_tokens from output (--output-tokens), seeded by the
// plan's Seed; an empty string leaves its part alone. explicitPrompts (-p,
// --prompt-file, --prompts) and maxTokens (--max-tokens) are what the
// lengths would overrule. Its errors name the flags, as Validate's do.
func (p *Plan) ApplyLengths(input, output string, explicitPrompts, maxTokens bool) error {
	if input != "" {
		l, err := parseLength("--input-tokens", input)
		if err != nil {
			return err
		}
		if explicitPrompts || p.Target.Body != nil {
			return errors.New("--input-tokens makes the prompts: it cannot be combined with -p, --prompt-file, --prompts, -d or --body")
		}
		p.Prompts = SyntheticPrompts(l, p.Runs, p.Seed)
		p.Lengths.InputTokens = strings.TrimSpace(input)
	}
	if output != "" {
		l, err := parseLength("--output-tokens", output)
		if err != nil {
			return err
		}
		if maxTokens || p.Target.Body != nil {
			return errors.New("--output-tokens sets max_tokens per prompt: drop --max-tokens, -d and --body")
		}
		SampleMaxTokens(p.Prompts, l, p.Seed)
		p.Lengths.OutputTokens = strings.TrimSpace(output)
	}
	return nil
}

// parseLength reads a length flag's N or N±SD, its errors naming it.
func parseLength(flag, s string) (Length, error) {
	l, err := ParseLength(s)
	if err != nil {
		return l, fmt.Errorf("%s %q: %v", flag, s, err)
	}
	return l, nil
}
