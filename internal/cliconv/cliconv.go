// Package cliconv holds the conventions of drip's command line that are
// logic rather than registration. They are other tools' flag names taken
// as drip's, "did you mean" for an unknown flag or subcommand, a wrong
// argument count or a bad flag value said in plain words, and the checks
// of values many flags share (sizes, addresses). Its errors name the
// flag, and the command makes them usage errors.
package cliconv

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/spf13/pflag"
)

// aliases are the names other load tools (vLLM bench serve, NVIDIA
// AIPerf) give drip's flags, taken as drip's own. --request-rate is
// --rate, --max-concurrency --concurrency, and --num-prompts, the number
// of requests vLLM sends, --runs.
var aliases = map[string]string{
	"request-rate":    "rate",
	"max-concurrency": "concurrency",
	"num-prompts":     "runs",
}

// Aliases is a pflag normalize func that takes other tools' names for
// drip run's flags as drip's own (fs.SetNormalizeFunc(cliconv.Aliases)).
func Aliases(_ *pflag.FlagSet, name string) pflag.NormalizedName {
	if to, ok := aliases[name]; ok {
		return pflag.NormalizedName(to)
	}
	return pflag.NormalizedName(name)
}

// SuggestFlag is "did you mean" for an unknown long flag's error, "" for
// any other error. It names the flags of fs within two edits of it, or
// containing it, and the aliases fs takes.
func SuggestFlag(fs *pflag.FlagSet, err error) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) || ne.GetSpecifiedShortnames() != "" {
		return ""
	}
	typed := ne.GetSpecifiedName()
	if i := strings.IndexByte(typed, '='); i >= 0 {
		typed = typed[:i]
	}
	var names, near []string
	fs.VisitAll(func(f *pflag.Flag) {
		if !f.Hidden {
			names = append(names, f.Name)
		}
	})
	for alias, to := range aliases {
		if fs.GetNormalizeFunc()(fs, alias) == pflag.NormalizedName(to) {
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

// flagValueWords are what a flag of each pflag type wants, in place of
// strconv's words.
var flagValueWords = map[string]string{"int": "a whole number", "int64": "a whole number", "float64": "a number", "bool": "true or false"}

// PlainFlagValue says what a flag wanted when pflag passes on strconv's
// error (strconv.ParseInt's "invalid syntax"), on the command line and in
// a --config file alike. A list given to a flag that takes one value is
// told so. Any other error comes back as it is.
func PlainFlagValue(err error) error {
	var bad *pflag.InvalidValueError
	var num *strconv.NumError
	if !errors.As(err, &bad) || !errors.As(err, &num) {
		return err
	}
	f := bad.GetFlag()
	want, ok := flagValueWords[f.Value.Type()]
	if !ok {
		return err
	}
	// Past the Go type's range. The type's bounds are not the flag's
	// (--runs refuses -5), which its own check names once in range.
	if errors.Is(num, strconv.ErrRange) {
		want += ", too large"
		if strings.HasPrefix(strings.TrimSpace(bad.GetValue()), "-") {
			want = strings.TrimSuffix(want, "large") + "small"
		}
	}
	if strings.Contains(bad.GetValue(), ",") {
		want += " (this flag takes one value)"
	}
	name := "--" + f.Name
	if f.Shorthand != "" {
		name = "-" + f.Shorthand + ", " + name
	}
	return fmt.Errorf("invalid argument %q for %q flag: want %s", bad.GetValue(), name, want)
}
