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
	fs.Int("seed", 0, "")
	fs.String("input-tokens", "", "")
	fs.String("output-tokens", "", "")
	fs.StringP("data", "d", "", "")
	fs.String("out", "", "")
	fs.String("format", "", "")
	fs.Duration("timeout", 0, "")
	fs.Duration("duration", 0, "")
	return fs
}

// Other tools' names set drip's flags.
func TestAliasesSetDripsFlags(t *testing.T) {
	t.Parallel()
	fs := flagSet()
	args := []string{"--request-rate", "2.5", "--max-concurrency=4", "--num-prompts", "7", "--random-input-len", "100",
		"--output-tokens-mean", "64", "--random-seed", "9", "--data-raw", "{}"}
	if err := fs.Parse(args); err != nil {
		t.Fatal(err)
	}
	for name, want := range map[string]string{"rate": "2.5", "concurrency": "4", "runs": "7", "input-tokens": "100", "output-tokens": "64", "seed": "9", "data": "{}"} {
		if got := fs.Lookup(name).Value.String(); got != want {
			t.Errorf("--%s is %s, want %s", name, got, want)
		}
	}
	for _, args := range [][]string{{"--request-count", "3"}, {"--iterations=3"}} {
		fs := flagSet()
		if err := fs.Parse(args); err != nil || fs.Lookup("runs").Value.String() != "3" {
			t.Errorf("%q did not set --runs: %v", args, err)
		}
	}
}

// An unknown long flag is offered the flags and aliases a few edits from
// it, or containing it, never a hidden one nor a name two edits from a
// three-letter one; another tool's flag gets its pointer to drip's; a short
// flag drip has no pointer for or another error gets nothing.
func TestSuggestFlag(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string // "" : no suggestion
	}{
		{[]string{"--rnus=3"}, "\n\nDid you mean this?\n\t--runs"},
		{[]string{"--concurrenc"}, "\n\nDid you mean this?\n\t--concurrency\n\t--max-concurrency"},
		{[]string{"--request-ratee"}, "\n\nDid you mean this?\n\t--request-rate"},
		{[]string{"--quiet2"}, ""},
		{[]string{"--tu"}, ""}, // two edits from --out, no suggestion
		{[]string{"-x"}, ""},
		{[]string{"--runs", "many"}, ""},
		{[]string{"--max-time", "30"}, "\ncurl's --max-time is drip's --timeout, with a unit (--timeout 30s)"},
		{[]string{"--endpoint-type=chat"}, "\nAIPerf's --endpoint-type is drip's --format (chat is openai-chat, completions openai-completions)"},
		{[]string{"-X", "POST"}, "\ncurl's -X/--request: drip always POSTs the format's request (-d sends your own body)"},
		{[]string{"-z", "10s"}, "\noha's -z is drip's --duration (--duration 10s)"},
		{[]string{"--api-key", "k"}, ""}, // a command without -H says nothing of headers
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

// Every pointer names a drip flag and says it, and no name is both an
// alias and a pointer.
func TestPointersNameDripsFlags(t *testing.T) {
	t.Parallel()
	for name, p := range pointers {
		if _, ok := aliases[name]; ok {
			t.Errorf("--%s is an alias and a pointer", name)
		}
		if p.flag == "" || p.say == "" {
			t.Errorf("--%s: an empty pointer %+v", name, p)
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
