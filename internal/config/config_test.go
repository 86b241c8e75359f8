package config

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/synctest"
	"time"

	"github.com/BurntSushi/toml"
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
// targets or refuses it with an error naming the file, without a panic;
// the hostile shapes (hostileConfigs) are among its seeds, so the fuzzer
// works the shape bounds from both sides.
// Seeds in testdata/fuzz/FuzzConfig.
func FuzzConfig(f *testing.F) {
	for _, s := range []string{
		"targets = [\"http://localhost:8000\"]\nmodel = \"m\"\n[headers]\nAuthorization = \"Bearer ${HOME}\"\n[workload]\nruns = 3\nconcurrency = [1, 2]\n[gates]\nfail-if = [\"ttft.p95 > 800ms\"]\n",
		"workload = { runs = [1, 3] }\n", "workload.runs = 3\ntargets = \"http://x\"\n", "[headers]\n\"X-A: B\" = \"v\"\n",
		"a = \"\"\"\\\n[{\"\"\"\"\" # [\nb = '''\n{{'''\n", "[\"a.b\".c.'d.e']\nf.g = {h.i = [[{j = 1}]]}\n",
	} {
		f.Add([]byte(s))
	}
	for _, c := range hostileConfigs() { // each far past a bound
		f.Add([]byte(c.text))
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

// hostileConfigs are files under the size limit that held the TOML
// parser for minutes and gigabytes: nesting, dotted keys and headers
// of thousands of levels, ${ENV} expanded 100,000 times. Each is refused
// by the bound it passes, naming it.
func hostileConfigs() []struct{ name, text, says string } {
	const n = 10_000
	return []struct{ name, text, says string }{
		{"10,000 nested inline tables", "targets = [\"http://x\"]\na = " + strings.Repeat("{b = ", n) + "1" + strings.Repeat("}", n) + "\n",
			"drip.toml:2: nested deeper than 16 (arrays and inline tables)"},
		{"30,000 nested arrays", "targets = [\"http://x\"]\na = " + strings.Repeat("[", 3*n) + strings.Repeat("]", 3*n) + "\n",
			"drip.toml:2: nested deeper than 16"},
		{"a 10,000-part dotted key", "targets = [\"http://x\"]\n" + strings.Repeat("a.", n) + "a = 1\n",
			"drip.toml:2: a key of more than 8 dotted parts"},
		{"a 10,000-part table header", "targets = [\"http://x\"]\n[" + strings.Repeat("a.", n) + "a]\n",
			"drip.toml:2: a key of more than 8 dotted parts"},
		{"a dotted key in an inline table", "targets = [\"http://x\"]\na = {" + strings.Repeat("b.", 8) + "c = 1}\n",
			"drip.toml:2: a key of more than 8 dotted parts"},
		{"20,000 keys", "targets = [\"http://x\"]\n" + manyKeys(2*n), "drip.toml:1001: more than 1000 keys"},
		{"100,000 array elements", "targets = [\"http://x\"]\na = [" + strings.Repeat("1,", 10*n) + "1]\n", "drip.toml:2: more than 10000 array elements"},
		{"${BIG} 100,000 times", "targets = [\"http://x\"]\n[headers]\nX-A = \"" + strings.Repeat("${DRIP_B}", 10*n) + "\"\n",
			"drip.toml:3: headers.X-A: ${ENV} expands past 1 MiB"},
	}
}

// manyKeys is n lines setting n keys.
func manyKeys(n int) string {
	var b strings.Builder
	for i := range n {
		fmt.Fprintf(&b, "a%d = 1\n", i)
	}
	return b.String()
}

func TestApplyBoundsDepthKeysAndExpansion(t *testing.T) {
	t.Setenv("DRIP_B", strings.Repeat("x", 1000))
	for _, c := range hostileConfigs() {
		_, err := Apply(t.Context(), runFlags(), writeConfig(t, c.text), nil)
		if err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %.300v, want one saying %q", c.name, err, c.says)
		}
	}
}

// What the bounds must not refuse: strings, comments, quoted keys and
// multi-line values that hold brackets, dots and braces, and a config a
// person writes, nested and dotted within the bounds.
func TestApplyBoundsLeaveOrdinaryFilesAlone(t *testing.T) {
	fs := runFlags()
	text := "targets = [\"http://x/[[[{{{...\", 'http://y/}]]]'] # [[[[{{{{ a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r\n" +
		"\"a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s\" = \"\"\"\n[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[ \\\"\"\" ]\"\"\"\n" +
		"workload.runs = 3\n" +
		"model = '''\n{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{{'''\n"
	_, err := Apply(t.Context(), fs, writeConfig(t, text), nil)
	if want := "drip.toml:2: a.b.c.d.e.f.g.h.i.j.k.l.m.n.o.p.q.r.s: not a drip run flag"; err == nil || !strings.Contains(err.Error(), want) {
		t.Errorf("error %v, want the parser's own %q", err, want)
	}
}

// The parse stops when the command's context ends (SIGTERM) and after
// readTimeout, whatever the parser is doing.
func TestApplyStopsOnSIGTERMAndAfterItsTimeout(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		hold := make(chan struct{})
		defer close(hold)
		decodeTOML = func(string, any) (toml.MetaData, error) { <-hold; return toml.MetaData{}, nil }
		defer func() { decodeTOML = toml.Decode }()
		path := writeConfig(t, "targets = [\"http://x\"]\n")
		ctx, stop := context.WithCancel(t.Context())
		go func() { time.Sleep(time.Second); stop() }() // SIGTERM, a second in
		start := time.Now()
		if _, err := Apply(ctx, runFlags(), path, nil); !errors.Is(err, context.Canceled) || time.Since(start) != time.Second {
			t.Errorf("SIGTERM a second in: error %v after %v, want context.Canceled after 1s", err, time.Since(start))
		}
		start = time.Now()
		if _, err := Apply(t.Context(), runFlags(), path, nil); err == nil || !strings.Contains(err.Error(), "still parsing after 10s") || time.Since(start) != readTimeout {
			t.Errorf("a parse that never ends: error %v after %v, want one after %v", err, time.Since(start), readTimeout)
		}
	})
}
