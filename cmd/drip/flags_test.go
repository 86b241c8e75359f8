package main

import (
	"net"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/record"

	"github.com/spf13/cobra"
)

// TestGroupCommandsRefuseAnUnknownSubcommand: every command that only
// groups others (fixtures, export, completion) refuses a word that names
// none of them with exit 2, as the root does, instead of printing its help
// and exiting 0; alone it still prints its help.
func TestGroupCommandsRefuseAnUnknownSubcommand(t *testing.T) {
	t.Parallel()
	var groups []*cobra.Command
	var walk func(c *cobra.Command)
	walk = func(c *cobra.Command) {
		if c.HasParent() && c.HasSubCommands() {
			groups = append(groups, c)
		}
		for _, sub := range c.Commands() {
			walk(sub)
		}
	}
	walk(newRoot())
	if len(groups) < 3 {
		t.Fatalf("found %d group commands, want fixtures, export and completion at least", len(groups))
	}
	for _, g := range groups {
		path := strings.Fields(g.CommandPath())[1:]
		code, stdout, stderr := drip(t, append(path, "nosuchthing")...)
		want := `unknown command "nosuchthing" for "` + g.CommandPath() + `"`
		if code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%s nosuchthing: exit %d, want %d and %q; stdout:\n%s\nstderr:\n%s", g.CommandPath(), code, exitUsage, want, stdout, stderr)
		}
		if code, stdout, _ := drip(t, path...); code != exitOK || !strings.Contains(stdout, "Available Commands") {
			t.Errorf("%s alone: exit %d, want 0 and its help:\n%s", g.CommandPath(), code, stdout)
		}
	}
	if _, _, stderr := drip(t, "fixtures", "srve"); !strings.Contains(stderr, "Did you mean this?\n\tserve") {
		t.Errorf("fixtures srve suggests no serve:\n%s", stderr)
	}
}

// TestASchemelessURLIsEchoedWithTheOneMeant: a host:port typed without
// http:// is quoted as typed, with the URL it likely means, by every
// command's URL (the run target, --upstream, --against); one that may
// hold a secret is still not echoed.
func TestASchemelessURLIsEchoedWithTheOneMeant(t *testing.T) {
	t.Parallel()
	rec := t.TempDir() + "/rec.jsonl"
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "127.0.0.1:18000"}, `bad URL "127.0.0.1:18000": no scheme: want http(s)://host[:port][/path], e.g. http://127.0.0.1:18000`},
		{[]string{"run", "localhost:18000/v1"}, `e.g. http://localhost:18000/v1`},
		{[]string{"watch", "127.0.0.1:18000", "--no-tui"}, `e.g. http://127.0.0.1:18000`},
		{[]string{"record", "--upstream", "127.0.0.1:18089"}, `--upstream "127.0.0.1:18089": no scheme: want http(s)://host[:port][/path], e.g. http://127.0.0.1:18089`},
		{[]string{"replay", rec, "--against", "127.0.0.1:18089"}, `--against "127.0.0.1:18089": no scheme: want http(s)://host[:port][/path], e.g. http://127.0.0.1:18089`},
		{[]string{"run", "u:sk-SECRET@127.0.0.1:1"}, `bad URL (not shown: it may hold user info)`},
		{[]string{"run", "127.0.0.1:1/v1?key=sk-SECRET"}, `bad URL "(unparseable URL)"`},
	} {
		code, _, stderr := drip(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "SECRET") {
			t.Errorf("%q: exit %d, want %d and %q without the secret; stderr:\n%s", tc.args, code, exitUsage, tc.want, stderr)
		}
	}
}

// TestAFixedBodyRefusesTheFlagsItMakesMoot: -d and --body are sent as is,
// so -p, --prompt-file and --max-tokens, which would change nothing yet be
// recorded as the workload, are refused naming both flags; -m is refused
// unless it matches the body's model or goes into the URL; without -m the
// records name the body's model, the one the server served.
func TestAFixedBodyRefusesTheFlagsItMakesMoot(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	file := filepath.Join(dir, "body.json")
	os.WriteFile(file, []byte(`{"model":"steady","stream":true,"messages":[{"role":"user","content":"hi"}]}`), 0o600)
	prompts := filepath.Join(dir, "q.txt")
	os.WriteFile(prompts, []byte("a question"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"-d", "@" + file, "-m", "mid-sentence-stall"}, `-m mid-sentence-stall and -d: the body asks for model "steady"`},
		{[]string{"--body", file, "-m", "fast"}, `-m fast and --body: the body asks for model "steady"`},
		{[]string{"-d", `{"stream":true}`, "-m", "steady"}, "-m steady and -d: the body names no model and -m changes neither the body nor the URL"},
		{[]string{"-d", "@" + file, "-p", "hello"}, "-p/--prompt-file and -d: the body is sent as is"},
		{[]string{"--body", file, "-p", "a", "-p", "b"}, "-p/--prompt-file and --body: the body is sent as is"},
		{[]string{"-d", "@" + file, "--prompt-file", prompts}, "-p/--prompt-file and -d"},
		{[]string{"-d", "@" + file, "--max-tokens", "5"}, "--max-tokens and -d: the body is sent as is"},
		{[]string{"-d", "@" + file, "--prompts", "builtin"}, "a fixed body (-d or --body) sends one request"},
		{[]string{"-d", "not json"}, "-d takes a JSON body, --body FILE sends any bytes as is"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1", "--runs", "1"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%q: exit %d, want %d and %q; stderr:\n%s", tc.args, code, exitUsage, tc.want, stderr)
		}
	}
	// -m names the model in a Gemini URL: it is sent, so it is taken.
	code, _, stderr := drip(t, "run", "http://127.0.0.1:1", "--format", "gemini", "-m", "gemini-pro", "-d", `{"contents":[]}`, "--runs", "1")
	if code == exitUsage {
		t.Errorf("gemini -m with -d: exit %d, want the stream tried (the model is in the URL):\n%s", code, stderr)
	}
	// A full Gemini URL names its model itself: -m goes nowhere, and the
	// refusal does not say the URL names none.
	code, _, stderr = drip(t, "run", "http://127.0.0.1:1/v1beta/models/gemini-pro:streamGenerateContent", "--format", "gemini", "-m", "gemini-flash", "-d", `{"contents":[]}`, "--runs", "1")
	if want := "-m gemini-flash and -d: the body names no model and -m changes neither the body nor the URL"; code != exitUsage || !strings.Contains(stderr, want) {
		t.Errorf("gemini -m with -d and a full URL: exit %d, want %d and %q; stderr:\n%s", code, exitUsage, want, stderr)
	}

	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	for _, args := range [][]string{{"-d", "@" + file}, {"--body", file, "-m", "steady"}} {
		out := filepath.Join(t.TempDir(), "runs.jsonl")
		code, stdout, stderr := drip(t, append([]string{"run", srv.URL, "--runs", "1", "--out", out}, args...)...)
		recs := readRecords(t, out)
		if code != exitOK || len(recs) != 1 || recs[0].Model != "steady" || recs[0].OutputTokens != fixtures.Lookup("steady").OutputTokens() {
			t.Errorf("%q: exit %d, records %d; want one of model steady with its %d tokens\n%s%s", args, code, len(recs), fixtures.Lookup("steady").OutputTokens(), stdout, stderr)
		}
		if !strings.Contains(stderr+stdout, "model steady") || strings.Contains(stderr+stdout, "model mid") {
			t.Errorf("%q: the report names no model steady:\n%s%s", args, stdout, stderr)
		}
	}
}

// TestJSONTakesOneTargetInRunAndWatch: --json prints one run's summary, so
// with several targets both run and watch refuse it (watch printed text
// reports and exited 0).
func TestJSONTakesOneTargetInRunAndWatch(t *testing.T) {
	t.Parallel()
	for _, cmd := range []string{"run", "watch"} {
		code, stdout, stderr := drip(t, cmd, "http://127.0.0.1:1", "-m", "steady", "-m", "fast", "--json", "--no-tui")
		if code != exitUsage || !strings.Contains(stderr, "--json prints one run's summary: with several targets use --out") {
			t.Errorf("%s with two targets and --json: exit %d, want %d; stdout:\n%s\nstderr:\n%s", cmd, code, exitUsage, stdout, stderr)
		}
	}
}

// TestAddressFlagsAreCheckedAlike: every address drip listens on is one
// rule: not host:port is exit 2 naming the flag (fixtures serve --addr was
// exit 3 without it), one in use exit 3 naming it.
func TestAddressFlagsAreCheckedAlike(t *testing.T) {
	t.Parallel()
	for _, args := range [][]string{
		{"fixtures", "serve", "--addr", "nonsense"},
		{"run", "http://127.0.0.1:1", "--metrics-addr", "nonsense"},
		{"record", "--upstream", "http://127.0.0.1:1", "--listen", "nonsense"},
	} {
		flag := args[len(args)-2]
		code, _, stderr := drip(t, args...)
		if want := flag + ` "nonsense": want host:port`; code != exitUsage || !strings.Contains(stderr, want) {
			t.Errorf("%q: exit %d, want %d and %q; stderr:\n%s", args, code, exitUsage, want, stderr)
		}
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer ln.Close()
	code, _, stderr := drip(t, "fixtures", "serve", "--addr", ln.Addr().String())
	if want := "--addr " + ln.Addr().String() + ": bind: address already in use"; code != exitCannotGo || !strings.Contains(stderr, want) {
		t.Errorf("--addr in use: exit %d, want %d and %q; stderr:\n%s", code, exitCannotGo, want, stderr)
	}
	// An empty port is any free one, as to net.Listen (cliconv's
	// TestCheckAddr has the forms taken); a named port is net.Listen's to
	// look up, and one it does not know fails there, still naming the flag.
	free, err := listenOn("--addr", "127.0.0.1:")
	if err != nil {
		t.Fatalf("--addr 127.0.0.1: (empty port): %v, want a free port", err)
	}
	free.Close()
	if port := free.Addr().(*net.TCPAddr).Port; port == 0 {
		t.Errorf("--addr 127.0.0.1: listened on port 0")
	}
	for _, args := range [][]string{
		{"fixtures", "serve", "--addr", "127.0.0.1:no-such-port"},
		{"run", "http://127.0.0.1:1", "--runs", "1", "--metrics-addr", "127.0.0.1:no-such-port"},
	} {
		flag := args[len(args)-2]
		code, _, stderr := drip(t, args...)
		if code != exitCannotGo || !strings.Contains(stderr, flag) || !strings.Contains(stderr, "no-such-port") {
			t.Errorf("%q: exit %d, want %d naming %s and the port; stderr:\n%s", args, code, exitCannotGo, flag, stderr)
		}
	}
}

// TestHeaderHelpNamesEveryKeyVariable: -H's help names every environment
// variable an adapter takes a key from (it named two of four) and the AWS
// chain.
func TestHeaderHelpNamesEveryKeyVariable(t *testing.T) {
	t.Parallel()
	files, _ := filepath.Glob("../../adapters/*.go")
	re := regexp.MustCompile(`(?:getenv|bearerAuth)\("([A-Z_]+)"\)`)
	vars := map[string]bool{}
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		for _, m := range re.FindAllStringSubmatch(string(b), -1) {
			vars[m[1]] = true
		}
	}
	if len(vars) < 4 {
		t.Fatalf("found key variables %v in adapters/, want at least 4", vars)
	}
	_, stdout, _ := drip(t, "run", "--help")
	i := strings.Index(stdout, "--header")
	if i < 0 {
		t.Fatalf("run --help has no --header:\n%s", stdout)
	}
	line := stdout[i:]
	line = line[:strings.Index(line, "\n  -")] // its text, wrapped or not
	for v := range vars {
		if !strings.Contains(line, v) {
			t.Errorf("-H help does not name %s: %q", v, line)
		}
	}
	if !strings.Contains(line, "AWS credential chain") {
		t.Errorf("-H help does not name the AWS chain: %q", line)
	}
}

// TestReplayTakesRunsStreamBounds: replay takes run's --max-frames and
// --max-bytes (probe.Stream applied their defaults to it, with no flag to
// change them): a replayed stream past one is stopped, kept, and recorded
// incomplete with error class limit.
func TestReplayTakesRunsStreamBounds(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	rec := writeRecording(t, "/v1/chat/completions?scenario=steady")
	for _, bound := range [][]string{{"--max-frames", "3"}, {"--max-bytes", "300B"}} {
		out := filepath.Join(t.TempDir(), "replayed.jsonl")
		code, _, stderr := drip(t, append([]string{"replay", rec, "--against", srv.URL, "--no-tui", "--out", out}, bound...)...)
		recs := readRecords(t, out)
		if len(recs) != 1 || recs[0].Status != record.StatusIncomplete || recs[0].Error == nil || recs[0].Error.Class != record.ErrLimit {
			t.Fatalf("%q: exit %d, records %d; want one stopped by the bound (incomplete, limit)\n%s", bound, code, len(recs), stderr)
		}
		if bound[0] == "--max-frames" && len(recs[0].Frames) != 3 {
			t.Errorf("--max-frames 3 kept %d frames", len(recs[0].Frames))
		}
	}
	if code, _, stderr := drip(t, "replay", rec, "--against", srv.URL, "--max-frames", "0"); code != exitUsage || !strings.Contains(stderr, "--max-frames 0: must be at least 1") {
		t.Errorf("--max-frames 0: exit %d\n%s", code, stderr)
	}
}

// TestASameConceptTakesTheSameShape: calibrate's --concurrency takes run's
// -c and its N[,N...] list (no shorthand, a default printed [1,10,100]);
// a list given to replay's one-value -c and --rate, or a bad number in a
// --config file, says what the flag wants instead of strconv's words.
func TestASameConceptTakesTheSameShape(t *testing.T) {
	t.Parallel()
	cfg := filepath.Join(t.TempDir(), "drip.toml")
	os.WriteFile(cfg, []byte("runs = \"x\"\n"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"calibrate", "-c", "0"}, `invalid argument "0" for "-c, --concurrency" flag: "0": must be at least 1`},
		{[]string{"calibrate", "-c", "4,2"}, `a sweep's levels must rise`},
		{[]string{"replay", "r.jsonl", "--against", "http://h:1", "-c", "2,4"}, `invalid argument "2,4" for "-c, --concurrency" flag: want a whole number (this flag takes one value)`},
		{[]string{"replay", "r.jsonl", "--against", "http://h:1", "--rate", "1,2"}, `invalid argument "1,2" for "--rate" flag: want a number (this flag takes one value)`},
		{[]string{"run", "http://h:1", "--config", cfg}, `runs: invalid argument "x" for "-n, --runs" flag: want a whole number`},
		{[]string{"fixtures", "serve", "--seed", "x"}, `invalid argument "x" for "--seed" flag: want a whole number`},
		{[]string{"run", "http://h:1", "--runs", "1,2"}, `invalid argument "1,2" for "-n, --runs" flag: want a whole number (this flag takes one value)`},
		{[]string{"run", "http://h:1", "--runs", "99999999999999999999"}, `for "-n, --runs" flag: want a whole number, too large`},
		{[]string{"run", "http://h:1", "--runs", "-99999999999999999999"}, `for "-n, --runs" flag: want a whole number, too small`},
		{[]string{"run", "http://h:1", "--seed", "99999999999999999999"}, `for "--seed" flag: want a whole number, too large`},
		{[]string{"replay", "r.jsonl", "--against", "http://h:1", "--rate", "1e999"}, `for "--rate" flag: want a number, too large`},
	} {
		code, _, stderr := drip(t, tc.args...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) || strings.Contains(stderr, "strconv") {
			t.Errorf("%q: exit %d, want %d and %q, no strconv; stderr:\n%s", tc.args, code, exitUsage, tc.want, stderr)
		}
	}
	_, stdout, _ := drip(t, "calibrate", "--help")
	if !strings.Contains(stdout, "-c, --concurrency N[,N...]") || !strings.Contains(stdout, "(default 1,10,100)") {
		t.Errorf("calibrate --help:\n%s", stdout)
	}
	// fixtures serve --seed is run's int64: a negative seed is a seed.
	_, runHelp, _ := drip(t, "run", "--help")
	_, fxHelp, _ := drip(t, "fixtures", "serve", "--help")
	if !strings.Contains(runHelp, "--seed int") || !strings.Contains(fxHelp, "--seed int") {
		t.Errorf("--seed types differ: run and fixtures serve helps:\n%s\n%s", runHelp, fxHelp)
	}
}

// TestCountsReadAsEnglish: a count of one is singular ("1 host", "-m given
// once"), as stats.Count writes everywhere else.
func TestCountsReadAsEnglish(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	dir := t.TempDir()
	a, b := filepath.Join(dir, "a.jsonl"), filepath.Join(dir, "b.jsonl")
	for _, out := range []string{a, b} {
		if code, _, stderr := drip(t, "run", srv.URL, "-m", "fast", "--runs", "1", "--host-label", "vm", "--out", out); code != exitOK {
			t.Fatalf("run: exit %d\n%s", code, stderr)
		}
	}
	if code, _, stderr := drip(t, "merge", a, b, "--out", filepath.Join(dir, "all.jsonl")); code != exitOK || !strings.Contains(stderr, "merged 2 records from 2 files (1 host: vm)") {
		t.Errorf("merge: exit %d\n%s", code, stderr)
	}
	if _, _, stderr := drip(t, "run", "http://a", "http://b", "http://c", "-m", "x", "-m", "y"); !strings.Contains(stderr, "-m given 2 times for 3 URLs") {
		t.Errorf("-m twice for 3 URLs:\n%s", stderr)
	}
	if _, _, stderr := drip(t, "compare", a, b, "--label", "x"); !strings.Contains(stderr, "--label given once for 2 files") {
		t.Errorf("--label once for 2 files:\n%s", stderr)
	}
}

// TestExportAiperfHelpStatesItsExitCodes: export aiperf's help names the
// exit 2 a file drip record did not make gets (it named only exit 3), and
// the exit 3 of an --out it cannot create.
func TestExportAiperfHelpStatesItsExitCodes(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	runs := filepath.Join(t.TempDir(), "runs.jsonl")
	if code, _, stderr := drip(t, "run", srv.URL, "-m", "fast", "--runs", "1", "--out", runs); code != exitOK {
		t.Fatalf("run: exit %d\n%s", code, stderr)
	}
	code, _, stderr := drip(t, "export", "aiperf", runs)
	_, help, _ := drip(t, "export", "aiperf", "--help")
	if code != exitUsage || !strings.Contains(stderr, "no recorded streams") {
		t.Errorf("export aiperf of a run file: exit %d, want %d\n%s", code, exitUsage, stderr)
	}
	if !strings.Contains(help, "2 a usage error (a flag, a missing\nfile, a file with no stream 'drip record' made, an --out that holds data\nwithout --force or whose directory is missing)") {
		t.Errorf("export aiperf --help does not state exit 2:\n%s", help)
	}
	sized := sizedRecording(t)
	if code, _, stderr := drip(t, "export", "aiperf", sized, "--out", filepath.Join(t.TempDir(), "trace.jsonl")); code != exitOK {
		t.Fatalf("export aiperf of a stream with a trace line: exit %d\n%s", code, stderr)
	}
	noDir := filepath.Join(t.TempDir(), "missing", "trace.jsonl")
	code, _, stderr = drip(t, "export", "aiperf", sized, "--out", noDir)
	if code != exitUsage || !strings.Contains(stderr, "--out "+noDir+": the directory") {
		t.Errorf("export aiperf --out %s: exit %d, want %d\n%s", noDir, code, exitUsage, stderr)
	}
	if !strings.Contains(strings.Join(strings.Fields(help), " "), "3 the file does not parse or holds no records, no stream is left for the trace, or --out cannot be written.") {
		t.Errorf("export aiperf --help does not state the exit 3 of an --out it cannot write:\n%s", help)
	}
}

// TestStreamBoundsAreOneFlagPair: run, replay and record take the same
// --max-frames and --max-bytes: the same help (but for what happens past
// a bound: record's client still gets all of it) and the same errors.
func TestStreamBoundsAreOneFlagPair(t *testing.T) {
	t.Parallel()
	rec := writeRecording(t, "/v1/chat/completions?scenario=steady")
	commands := map[string][]string{
		"run":    {"run", "http://127.0.0.1:1"},
		"replay": {"replay", rec, "--against", "http://127.0.0.1:1"},
		"record": {"record", "--upstream", "http://127.0.0.1:1", "--listen", "127.0.0.1:0", "--out", filepath.Join(t.TempDir(), "rec.jsonl")},
	}
	for name, args := range commands {
		cmd, _, err := newRoot().Find(args[:1])
		if err != nil {
			t.Fatal(err)
		}
		for flag, kept := range map[string]string{"max-frames": "frames kept of one stream; past it ", "max-bytes": "body kept of one stream, e.g. 512KiB, 64MiB, 1GiB; past it "} {
			f := cmd.Flags().Lookup(flag)
			if f == nil {
				t.Fatalf("drip %s has no --%s", name, flag)
			}
			if !strings.HasPrefix(f.Usage, kept) {
				t.Errorf("drip %s --%s help %q, want it to begin %q", name, flag, f.Usage, kept)
			}
		}
		for _, tc := range []struct{ bound, want string }{
			{"--max-frames=0", "--max-frames 0: must be at least 1"},
			{"--max-frames=100000001", "--max-frames 100000001: must be at most 100000000"},
			{"--max-bytes=2TiB", `--max-bytes "2TiB": want a size from 1 byte to 1TiB, e.g. 512KiB or 64MiB`},
		} {
			code, _, stderr := drip(t, append(args, tc.bound)...)
			if code != exitUsage || !strings.Contains(stderr, tc.want) {
				t.Errorf("drip %s %s: exit %d, want %d and %q; stderr:\n%s", name, tc.bound, code, exitUsage, tc.want, stderr)
			}
		}
	}
}

// sizedRecording is a recording of one stream whose server reported its
// prompt tokens: a trace line for drip export aiperf.
func sizedRecording(t *testing.T) string {
	x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true}
	x.SetResponse([]byte("data: {\"choices\":[{\"delta\":{\"content\":\"hi\"}}]}\n\ndata: {\"choices\":[],\"usage\":{\"prompt_tokens\":12,\"completion_tokens\":1}}\n\ndata: [DONE]\n\n"))
	return tempRecords(t, []*record.Record{{V: record.RecordVersion, Phase: record.PhaseMeasure, Exchange: x, DurationMS: 182,
		Frames: []record.Frame{{TMS: 180, Kind: record.KindContent, Text: "hi"}, {TMS: 181, Kind: record.KindEnd}}}})
}

func TestNamesNeedJSONAndAKnownTool(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--json", "--names", "guidellm"}, "--names guidellm: want vllm or aiperf"},
		{[]string{"--names", "vllm"}, "add --json"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}
