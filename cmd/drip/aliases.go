package main

import (
	"errors"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
)

// flagAliases are the names other load tools (vLLM bench serve, NVIDIA
// AIPerf) give drip's flags, taken as drip's own: --request-rate is
// --rate, --max-concurrency --concurrency, and --num-prompts, the number
// of requests vLLM sends, --runs.
var flagAliases = map[string]string{
	"request-rate":    "rate",
	"max-concurrency": "concurrency",
	"num-prompts":     "runs",
}

// acceptAliases makes fs, drip run's, take flagAliases.
func acceptAliases(fs *pflag.FlagSet) {
	fs.SetNormalizeFunc(func(_ *pflag.FlagSet, name string) pflag.NormalizedName {
		if to, ok := flagAliases[name]; ok {
			return pflag.NormalizedName(to)
		}
		return pflag.NormalizedName(name)
	})
}

// aliasHelp is the help's paragraph on the names other tools use.
const aliasHelp = `Flags from other tools: --request-rate (vLLM, AIPerf) is --rate,
--max-concurrency (vLLM) is --concurrency, --num-prompts (vLLM) is --runs,
and curl's -N (--no-buffer) is accepted and changes nothing: drip reads
every stream unbuffered. -k/--insecure, --cacert and --cert/--key are
curl's TLS flags.`

// registerNoBuffer accepts curl's -N, which changes nothing: drip never
// buffers a stream.
func registerNoBuffer(fs *pflag.FlagSet) {
	fs.BoolP("no-buffer", "N", false, "curl's flag, accepted; drip reads every stream unbuffered")
	_ = fs.MarkHidden("no-buffer") // a flag that does nothing does not belong in the list
}

// suggestFlag adds "did you mean" to an unknown long flag's error: the
// command's flags within two edits of it, or containing it.
func suggestFlag(c *cobra.Command, err error) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedShortnames() != "" {
		return ""
	}
	typed := ne.GetSpecifiedName()
	if i := strings.IndexByte(typed, '='); i >= 0 {
		typed = typed[:i]
	}
	var names, near []string
	c.Flags().VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	for alias, to := range flagAliases {
		if c.Flags().GetNormalizeFunc()(c.Flags(), alias) == pflag.NormalizedName(to) {
			names = append(names, alias)
		}
	}
	for _, name := range names {
		if editDistance(typed, name) <= 2 || len(typed) > 2 && strings.Contains(name, typed) {
			near = append(near, "--"+name)
		}
	}
	if len(near) == 0 {
		return ""
	}
	slices.Sort(near)
	return "\n\nDid you mean this?\n\t" + strings.Join(near, "\n\t")
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (flag names are ASCII).
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}
