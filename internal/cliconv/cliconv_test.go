package cliconv

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

func flagSet() *pflag.FlagSet {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.SetNormalizeFunc(Aliases)
	fs.Int("runs", 1, "")
	fs.Float64("rate", 0, "")
	fs.Int("concurrency", 1, "")
	fs.IntP("warmup", "w", 0, "")
	fs.Bool("quiet", false, "")
	_ = fs.MarkHidden("quiet")
	return fs
}

// Other tools' names set drip's flags.
func TestAliasesSetDripsFlags(t *testing.T) {
	t.Parallel()
	fs := flagSet()
	if err := fs.Parse([]string{"--request-rate", "2.5", "--max-concurrency=4", "--num-prompts", "7"}); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"rate": "2.5", "concurrency": "4", "runs": "7"} {
		if got := fs.Lookup(name).Value.String(); got != want {
			t.Errorf("--%s is %s, want %s", name, got, want)
		}
	}
}

// An unknown long flag is offered the flags near it, its aliases among
// them, never a hidden one; a short flag or another error gets nothing.
func TestSuggestFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string // "" : no suggestion
	}{
		{[]string{"--rnus=3"}, "\n\nDid you mean this?\n\t--runs"},
		{[]string{"--concurrenc"}, "\n\nDid you mean this?\n\t--concurrency\n\t--max-concurrency"},
		{[]string{"--request"}, "\n\nDid you mean this?\n\t--request-rate"},
		{[]string{"--quiet2"}, ""},
		{[]string{"-x"}, ""},
		{[]string{"--runs", "many"}, ""},
	} {
		err := flagSet().Parse(tc.args)
		if err == nil {
			t.Fatalf("%q parsed", tc.args)
		}
		if got := SuggestFlag(flagSet(), err); got != tc.want {
			t.Errorf("%q: suggested %q, want %q", tc.args, got, tc.want)
		}
	}
}

// strconv's words become what the flag wanted, naming it as typed.
func TestPlainFlagValue(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--runs", "2,4"}, `invalid argument "2,4" for "--runs" flag: want a whole number (this flag takes one value)`},
		{[]string{"-w", "99999999999999999999"}, `invalid argument "99999999999999999999" for "-w, --warmup" flag: want a whole number, too large`},
		{[]string{"--runs", "-99999999999999999999"}, `invalid argument "-99999999999999999999" for "--runs" flag: want a whole number, too small`},
		{[]string{"--rate", "fast"}, `invalid argument "fast" for "--rate" flag: want a number`},
	} {
		err := PlainFlagValue(flagSet().Parse(tc.args))
		if err == nil || err.Error() != tc.want {
			t.Errorf("%q: %v, want %q", tc.args, err, tc.want)
		}
	}
	err := flagSet().Parse([]string{"--nope"})
	if got := PlainFlagValue(err); got != err || !strings.Contains(got.Error(), "unknown flag") {
		t.Errorf("an unknown flag's error became %v", got)
	}
}
