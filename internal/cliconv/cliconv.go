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

// SuggestFlag is what drip says after an unknown flag's error, "" after
// any other. Another tool's flag gets the line that says drip's way
// (pointers). Else a long flag gets "did you mean" with the flags of fs
// and the aliases it takes a few edits from it, or containing it.
func SuggestFlag(fs *pflag.FlagSet, err error) string {
	var ne *pflag.NotExistError
	if !errors.As(err, &ne) {
		return ""
	}
	if p := pointFlag(fs, ne); p != "" {
		return p
	}
	if ne.GetSpecifiedShortnames() != "" {
		return ""
	}
	typed := flagName(ne.GetSpecifiedName())
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
		// An edit a third of the name long at most: --vus is two edits from
		// --out, which would mislead.
		if 3*editDistance(typed, name) <= len(typed) || len(typed) > 3 && strings.Contains(name, typed) {
			near = append(near, "--"+name)
		}
	}
	if len(near) == 0 {
		return ""
	}
	slices.Sort(near)
	return "\n\nDid you mean this?\n\t" + strings.Join(near, "\n\t")
}

// flagName is a long flag as typed without its =value.
func flagName(typed string) string {
	name, _, _ := strings.Cut(typed, "=")
	return name
}

// editDistance is the Levenshtein distance between a and b, in bytes
// (flag names are ASCII), with two neighbours swapped counted as one
// edit, so that --rnus is one edit from --runs.
func editDistance(a, b string) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
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
