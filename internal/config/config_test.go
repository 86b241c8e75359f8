package config

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"
)

// listValue takes a comma list, as drip run's -c: its type reads
// "N[,N...]".
type listValue struct{ s string }

func (l *listValue) String() string     { return l.s }
func (l *listValue) Set(s string) error { l.s = s; return nil }
func (l *listValue) Type() string       { return "N[,N...]" }

// runFlags is a flag set of the kinds drip run's has: one value, a
// repeatable one, a comma list.
func runFlags() *pflag.FlagSet {
	fs := pflag.NewFlagSet("run", pflag.ContinueOnError)
	fs.String("config", "", "")
	fs.String("model", "", "")
	fs.Int("runs", 1, "")
	fs.StringArray("header", nil, "")
	fs.Var(&listValue{}, "concurrency", "")
	return fs
}

func writeConfig(t testing.TB, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "drip.toml")
	if err := os.WriteFile(p, []byte(text), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// The file's headers, both forms, add to the command line's -H, and a -H
// naming one wins over it: with any -H, request.header's were dropped
// while [headers]' were sent, even beside a -H of the same name.
func TestHeadersAddToTheCommandLinesAndLoseToIt(t *testing.T) {
	fs := runFlags()
	for _, h := range []string{"X-A: cli", "x-c: cli"} {
		if err := fs.Set("header", h); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv("DRIP_TEST_UNSET", "")
	os.Unsetenv("DRIP_TEST_UNSET")
	cfg := writeConfig(t, "targets = [\"http://x\"]\n[headers]\nx-a = \"${DRIP_TEST_UNSET}\"\nX-B = \"b\"\n[request]\nheader = [\"X-C: file\", \"X-D: d\"]\n")
	if _, err := Apply(t.Context(), fs, cfg, nil); err != nil {
		t.Fatal(err)
	}
	got, _ := fs.GetStringArray("header")
	if want := []string{"X-A: cli", "x-c: cli", "X-B: b", "X-D: d"}; !slices.Equal(got, want) {
		t.Errorf("-H is %q, want %q", got, want)
	}
}

// An array is one value per element only for a repeatable flag; a list
// flag (-c) takes it as its comma list; any other flag refuses it, naming
// the line.
func TestArrays(t *testing.T) {
	fs := runFlags()
	if _, err := Apply(t.Context(), fs, writeConfig(t, "targets = [\"http://x\"]\nconcurrency = [1, 2, 4]\n"), nil); err != nil {
		t.Fatal(err)
	}
	if got := fs.Lookup("concurrency").Value.String(); got != "1,2,4" {
		t.Errorf("concurrency = [1, 2, 4] set -c %s, want 1,2,4", got)
	}
	_, err := Apply(t.Context(), runFlags(), writeConfig(t, "targets = [\"http://x\"]\n[workload]\nruns = [1, 3]\n"), nil)
	if want := "drip.toml:3: workload.runs: --runs takes one value"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("runs = [1, 3]: error %v, want %q", err, want)
	}
}

// The arguments win over the file's targets; a file with neither is
// refused; the command line's flags win over the file's.
func TestTargetsAndTheCommandLineWin(t *testing.T) {
	fs := runFlags()
	if err := fs.Set("runs", "2"); err != nil {
		t.Fatal(err)
	}
	cfg := writeConfig(t, "targets = \"http://file\"\nruns = 3\nmodel = \"m\"\n")
	urls, err := Apply(t.Context(), fs, cfg, []string{"http://arg"})
	if runs, _ := fs.GetInt("runs"); err != nil || !slices.Equal(urls, []string{"http://arg"}) || runs != 2 || fs.Lookup("model").Value.String() != "m" {
		t.Errorf("urls %q err %v runs %d: want the argument, --runs 2 from the command line, -m m from the file", urls, err, runs)
	}
	if urls, _ := Apply(t.Context(), runFlags(), cfg, nil); !slices.Equal(urls, []string{"http://file"}) {
		t.Errorf("urls %q, want the file's", urls)
	}
	if _, err := Apply(t.Context(), runFlags(), writeConfig(t, "model = \"m\"\n"), nil); err == nil || !strings.Contains(err.Error(), "no targets") {
		t.Errorf("no targets: error %v", err)
	}
}

// FuzzConfig: whatever a --config file holds, Apply either takes its
// targets or refuses it with an error naming the file, without a panic.
// Seeds in testdata/fuzz/FuzzConfig.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"targets = [\"http://localhost:8000\"]\nmodel = \"m\"\n[headers]\nAuthorization = \"Bearer ${HOME}\"\n[workload]\nruns = 3\nconcurrency = [1, 2]\n[gates]\nfail-if = [\"ttft.p95 > 800ms\"]\n",
		"workload = { runs = [1, 3] }\n", "workload.runs = 3\ntargets = \"http://x\"\n", "[headers]\n\"X-A: B\" = \"v\"\n",
	} {
		f.Add([]byte(s))
	}
	path := filepath.Join(f.TempDir(), "drip.toml")
	f.Fuzz(func(t *testing.T, text []byte) {
		if err := os.WriteFile(path, text, 0o600); err != nil {
			t.Fatal(err)
		}
		targets, err := Apply(t.Context(), runFlags(), path, nil)
		switch {
		case err == nil && len(targets) == 0:
			t.Fatal("a config taken with no targets")
		case err != nil && !strings.Contains(err.Error(), path):
			t.Fatalf("error %q: want one naming the file", err)
		}
	})
}
