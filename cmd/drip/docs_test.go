package main

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// The docs-run test: every drip command in a fenced code block of README.md
// and docs/*.md is run, as written, with the real binary against the
// fixture server, and must exit 0 — or the code its line documents with a
// trailing comment such as "# exits 1".
//
// What the test changes, so a documented command can run offline:
//   - every http(s)://host[:port] becomes the fixture server (path and
//     query kept), which streams its default scenario for any model;
//   - --duration longer than docsMaxDuration is cut to it, and --runs
//     over docsMaxRuns to that, since the fixture streams in real time and
//     twenty runs of it take a minute (--runs-per-level stays, as a sweep
//     refuses fewer runs a level than its concurrency);
//   - every listen address (--addr, --listen, --metrics-addr) becomes
//     127.0.0.1:0; a server command (drip fixtures serve, anything with
//     --listen) must still be running after a moment, and is stopped;
//     the file it writes (drip record --out) gets a name of its own, as a
//     moment of serving records nothing, and a later command reading that
//     name gets a stock file;
//   - the commands of one doc share a directory, so a file one writes
//     (--out, -o, --csv) is there for the next; one that reads or rewrites
//     it waits for the writer;
//   - an input file no earlier command wrote (records .jsonl, prompt files,
//     --body / -d @FILE bodies, a .toml config) is made from a stock one; a
//     recording read by drip replay, drip export or --from is one made
//     through drip record.
//
// A command line is one that starts "drip " (or "$ drip ", or
// "go run ./cmd/drip "), joined over trailing backslashes, cut at an
// unquoted |, >, <, ;, && or &. Lines with placeholders (an all-caps word
// such as URL or FILE, "…", or a [bracketed] option) are synopses: logged,
// not run. In a block where some lines start with "$ ", only those are
// commands; the rest is output.

const (
	docsMaxDuration = 2 * time.Second
	docsMaxRuns     = 6
	docsParallel    = 32
	docsTimeout     = 120 * time.Second
)

var (
	docsURL       = regexp.MustCompile(`https?://[^/\s'"]+`)
	docsExitCode  = regexp.MustCompile(`\bexits? (?:with )?(?:code )?(\d+)\b`)
	docsSubcmd    = regexp.MustCompile(`^([a-z][a-z-]*|-.*)$`)
	docsAllCaps   = regexp.MustCompile(`^[A-Z][A-Z_]*$`)
	docsFenceOpen = regexp.MustCompile("^```\\s*(sh|bash|shell|console|)\\s*$")
)

// docCommand is one documented command.
type docCommand struct {
	where    string // file:line
	text     string // as written, joined
	args     []string
	wantCode int
}

func TestDocumentedCommandsRunOffline(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs every documented command (about a minute)")
	}
	docs, _ := filepath.Glob("../../docs/*.md")
	docs = append([]string{"../../README.md"}, docs...)
	var cmds []docCommand
	for _, path := range docs {
		found, skipped, err := extractDocCommands(path)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range skipped {
			t.Logf("not run (a synopsis or not a drip command line): %s", s)
		}
		cmds = append(cmds, found...)
	}
	if len(cmds) < 20 {
		t.Fatalf("found %d documented commands, want the README's and docs' (20 or more): is the extraction broken?", len(cmds))
	}
	bin := dripBinary(t)
	// The fixture server runs as drip fixtures serve, a process of its own.
	// In this test binary (built with -race, running many tests at once) its
	// timers ran late under load, and a documented replay gate tripped.
	srvURL, _ := startServing(t, bin, "fixtures", "serve", "--addr", "127.0.0.1:0")
	stock := stockFiles(t, bin, srvURL)

	// The commands of one doc share a directory and run in the doc's
	// order where one reads or rewrites a file an earlier one writes
	// (drip run --out a.jsonl, then drip compare a.jsonl); the rest run
	// docsParallel at a time (go test's -parallel is the core count, and
	// these mostly wait on the fixture's pacing). Each reports as a subtest
	// named by its doc line.
	failures := make([]string, len(cmds))
	done := make([]chan struct{}, len(cmds))
	sem := make(chan struct{}, docsParallel)
	dirs := map[string]string{}
	written := map[string]bool{} // doc dir/file: an earlier command writes it
	var wg sync.WaitGroup
	for i, c := range cmds {
		done[i] = make(chan struct{})
		doc := strings.Split(c.where, ":")[0]
		if dirs[doc] == "" {
			dirs[doc] = t.TempDir()
		}
		if err := docsInputs(dirs[doc], c.args, written, stock); err != nil {
			t.Fatalf("%s: %v", c.where, err)
		}
		deps := docsDeps(cmds[:i], c, doc)
		dir := dirs[doc] // read here: the loop writes the map while commands run
		wg.Add(1)
		go func() {
			defer wg.Done()
			defer close(done[i])
			for _, d := range deps {
				<-done[d]
			}
			sem <- struct{}{}
			defer func() { <-sem }()
			failures[i] = runDocCommand(bin, srvURL, dir, stock, c)
		}()
	}
	wg.Wait()
	for i, c := range cmds {
		t.Run(c.where, func(t *testing.T) {
			if failures[i] != "" {
				t.Error(failures[i])
			}
		})
	}
}

// docsDeps are the earlier commands of the same doc that write a file c
// reads or writes.
func docsDeps(earlier []docCommand, c docCommand, doc string) []int {
	ins, outs := docsFiles(c.args)
	var deps []int
	for j, e := range earlier {
		if !strings.HasPrefix(e.where, doc+":") {
			continue
		}
		_, eOuts := docsFiles(e.args)
		for f := range eOuts {
			if _, ok := ins[f]; ok || outs[f] {
				deps = append(deps, j)
				break
			}
		}
	}
	return deps
}

// runDocCommand runs one command in a directory of its own and says what
// went wrong, if anything.
func runDocCommand(bin, base, dir string, stock map[string][]byte, c docCommand) string {
	args, server := docsRewrite(c.args, base)
	ctx, cancel := context.WithTimeout(context.Background(), docsTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return err.Error()
	}
	fail := func(format string, a ...any) string {
		return fmt.Sprintf("%s: documented command\n  %s\nran as\n  drip %s\n%s\n(the docs-run test: every drip command in README.md and docs/*.md must exit 0 against the fixture server, or the code a trailing '# exits N' comment documents; see cmd/drip/docs_test.go)\nstderr:\n%s\nstdout (first 2000 bytes):\n%s",
			c.where, c.text, strings.Join(args, " "), fmt.Sprintf(format, a...), stderr.String(), head(stdout.String(), 2000))
	}
	if server {
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			return fail("a server command ended by itself (exit %d) instead of serving", exitCodeOf(err))
		case <-time.After(1500 * time.Millisecond):
		}
		cmd.Process.Signal(syscall.SIGINT)
		if code := exitCodeOf(<-done); code != 0 && code != 130 {
			return fail("after SIGINT it exited %d, want 0 or 130", code)
		}
		return ""
	}
	err := cmd.Wait()
	if ctx.Err() != nil {
		return fail("still running after %v", docsTimeout)
	}
	if code := exitCodeOf(err); code != c.wantCode {
		return fail("exited %d, want %d", code, c.wantCode)
	}
	return ""
}

func exitCodeOf(err error) int {
	var ee *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &ee):
		if ws, ok := ee.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return ee.ExitCode()
	}
	return -1
}

func head(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

// extractDocCommands finds the drip commands in a markdown file's fenced
// code blocks; skipped lists the drip lines that are synopses.
func extractDocCommands(path string) (cmds []docCommand, skipped []string, err error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, nil, err
	}
	name := strings.TrimPrefix(path, "../../")
	lines := strings.Split(string(b), "\n")
	for i := 0; i < len(lines); i++ {
		if !strings.HasPrefix(lines[i], "```") {
			continue
		}
		end := i + 1
		for end < len(lines) && !strings.HasPrefix(lines[end], "```") {
			end++
		}
		if !docsFenceOpen.MatchString(lines[i]) { // toml, json, …: not commands
			i = end
			continue
		}
		block := lines[i+1 : min(end, len(lines))]
		prompted := false
		for _, l := range block {
			prompted = prompted || strings.HasPrefix(l, "$ ")
		}
		for j := 0; j < len(block); j++ {
			first := i + 1 + j + 1 // 1-based line number
			l := block[j]
			if prompted {
				if !strings.HasPrefix(l, "$ ") {
					continue
				}
				l = strings.TrimPrefix(l, "$ ")
			}
			for strings.HasSuffix(l, "\\") && j+1 < len(block) {
				j++
				l = strings.TrimSuffix(l, "\\") + " " + strings.TrimSpace(strings.TrimPrefix(block[j], "> "))
			}
			c, ok, why := parseDocCommand(l)
			where := fmt.Sprintf("%s:%d", name, first)
			switch {
			case ok:
				c.where = where
				cmds = append(cmds, c)
			case why != "":
				skipped = append(skipped, fmt.Sprintf("%s: %s (%s)", where, strings.TrimSpace(l), why))
			}
		}
		i = end
	}
	return cmds, skipped, nil
}

// parseDocCommand reads one line; a line that is no drip command gives
// ok false and no reason, a synopsis a reason.
func parseDocCommand(line string) (c docCommand, ok bool, why string) {
	line = strings.TrimSpace(line)
	rest, isGoRun := strings.CutPrefix(line, "go run ./cmd/drip ")
	if !isGoRun {
		var isDrip bool
		if rest, isDrip = strings.CutPrefix(line, "drip "); !isDrip {
			return c, false, ""
		}
	}
	words, comment := shellWords(rest)
	if len(words) == 0 || !docsSubcmd.MatchString(words[0]) {
		return c, false, "" // drip's own output ("drip · run 7", "drip: …")
	}
	for _, w := range words {
		switch {
		case w == "·" || w == "│":
			return c, false, ""
		case docsAllCaps.MatchString(w), strings.Contains(w, "…"), strings.HasPrefix(w, "["):
			return c, false, fmt.Sprintf("placeholder %q", w)
		}
	}
	c = docCommand{text: line, args: words}
	if m := docsExitCode.FindStringSubmatch(comment); m != nil {
		c.wantCode, _ = strconv.Atoi(m[1])
	}
	return c, true, ""
}

// shellWords splits a command line as sh would (quotes, backslashes), up
// to a comment or an unquoted control operator; it returns the comment.
func shellWords(s string) (words []string, comment string) {
	var w strings.Builder
	inWord := false
	flush := func() {
		if inWord {
			words = append(words, w.String())
		}
		w.Reset()
		inWord = false
	}
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case ch == '\'':
			end := strings.IndexByte(s[i+1:], '\'')
			if end < 0 {
				end = len(s) - i - 1
			}
			w.WriteString(s[i+1 : i+1+end])
			inWord, i = true, i+1+end
		case ch == '"':
			i++
			for ; i < len(s) && s[i] != '"'; i++ {
				if s[i] == '\\' && i+1 < len(s) && strings.IndexByte(`"\$`+"`", s[i+1]) >= 0 {
					i++
				}
				w.WriteByte(s[i])
			}
			inWord = true
		case ch == '\\' && i+1 < len(s):
			i++
			w.WriteByte(s[i])
			inWord = true
		case ch == ' ' || ch == '\t':
			flush()
		case ch == '#' && !inWord:
			flush()
			return words, s[i:]
		case strings.IndexByte("|&;<>", ch) >= 0:
			flush()
			if j := strings.IndexByte(s[i:], '#'); j >= 0 {
				comment = s[i+j:]
			}
			return words, comment
		default:
			w.WriteByte(ch)
			inWord = true
		}
	}
	flush()
	return words, ""
}

// docsRewrite points a command at the fixture server and keeps it short.
func docsRewrite(in []string, base string) (args []string, server bool) {
	args = make([]string, len(in))
	for i, a := range in {
		args[i] = docsURL.ReplaceAllString(a, base)
	}
	server = docsServer(args)
	for i := 0; i < len(args); i++ {
		name, _, inline := strings.Cut(args[i], "=")
		switch name {
		case "--listen", "--addr", "--metrics-addr":
			// Fixed ports collide with other runs of this test.
			server = server || name == "--listen"
			if inline {
				args[i] = name + "=127.0.0.1:0"
			} else if i+1 < len(args) {
				args[i+1] = "127.0.0.1:0"
			}
		case "--out":
			if server && !inline && i+1 < len(args) {
				args[i+1] += ".server-out"
			}
		case "--duration":
			capDocsFlag(args, i, func(v string) (string, bool) {
				d, err := time.ParseDuration(v)
				return docsMaxDuration.String(), err == nil && d > docsMaxDuration
			})
		case "--runs":
			capDocsFlag(args, i, func(v string) (string, bool) {
				n, err := strconv.Atoi(v)
				return strconv.Itoa(docsMaxRuns), err == nil && n > docsMaxRuns
			})
		}
	}
	return args, server
}

// capDocsFlag replaces the value of the flag at args[i], given inline
// (--runs=20) or as the next argument, with the bound cut returns when
// cut says the value is over it.
func capDocsFlag(args []string, i int, cut func(value string) (bound string, over bool)) {
	name, value, inline := strings.Cut(args[i], "=")
	at := i
	if !inline {
		if i+1 >= len(args) {
			return
		}
		at, value = i+1, args[i+1]
	}
	bound, over := cut(value)
	switch {
	case !over:
	case inline:
		args[at] = name + "=" + bound
	default:
		args[at] = bound
	}
}

// docsServer reports a command that serves until it is stopped.
func docsServer(args []string) bool {
	if len(args) >= 2 && args[0] == "fixtures" && args[1] == "serve" {
		return true
	}
	for _, a := range args {
		if name, _, _ := strings.Cut(a, "="); name == "--listen" || name == "--addr" {
			return true
		}
	}
	return false
}

// Output flags: the files they name are written, not read.
var docsOutputFlags = map[string]bool{"--out": true, "-o": true, "--output": true, "--csv": true}

// docsFiles are the files a command reads (by the stock kind that stands
// in for a missing one) and writes.
func docsFiles(args []string) (ins map[string]string, outs map[string]bool) {
	ins, outs = map[string]string{}, map[string]bool{}
	server := docsServer(args)
	recording := len(args) > 0 && (args[0] == "replay" || args[0] == "export")
	hops := len(args) > 0 && (args[0] == "hops" || args[0] == "view" && slices.Contains(args, "--relay"))
	for i, a := range args {
		prev := ""
		if i > 0 {
			prev = args[i-1]
		}
		if docsOutputFlags[prev] {
			if !server {
				outs[a] = true
			}
			continue
		}
		if name, value, ok := strings.Cut(a, "="); ok && docsOutputFlags[name] {
			outs[value] = true
			continue
		}
		if strings.Contains(a, "://") || strings.HasPrefix(a, "-") {
			continue
		}
		path := strings.TrimPrefix(a, "@")
		switch ext := filepath.Ext(path); {
		case prev == "--prompt-file" && ext == ".jsonl":
			ins[path] = "prompts.jsonl"
		case prev == "--prompt-file":
			ins[path] = "prompt.txt"
		case prev == "--body" || strings.HasPrefix(a, "@") && (prev == "-d" || prev == "--data"):
			ins[path] = "body.json"
		case ext == ".jsonl" && hops && i == 1:
			ins[path] = "hops-client.jsonl"
		case ext == ".jsonl" && (recording || hops || prev == "--from" || prev == "--relay"):
			ins[path] = "recording.jsonl"
		case ext == ".jsonl":
			ins[path] = "records.jsonl"
		case ext == ".toml":
			ins[path] = "drip.toml"
		}
	}
	return ins, outs
}

// docsInputs makes, before anything runs, every input file a command
// names that no earlier command of its doc writes, and notes what it
// writes.
func docsInputs(dir string, args []string, written map[string]bool, stock map[string][]byte) error {
	ins, outs := docsFiles(args)
	for path := range outs {
		written[filepath.Join(dir, path)] = true
	}
	for path, kind := range ins {
		p := filepath.Join(dir, path)
		if _, err := os.Stat(p); err == nil || written[p] {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(p, stock[kind], 0o600); err != nil {
			return err
		}
	}
	return nil
}

// stockFiles are the inputs a documented command may name: a real record
// file from the fixture server, prompts, a request body, a config.
func stockFiles(t *testing.T, bin, base string) map[string][]byte {
	dir := t.TempDir()
	recs := filepath.Join(dir, "records.jsonl")
	out, err := exec.Command(bin, "run", base, "-m", "steady", "--runs", "3", "--out", recs).CombinedOutput()
	if err != nil {
		t.Fatalf("making the stock record file: %v\n%s", err, out)
	}
	b, _ := os.ReadFile(recs)
	recording, client := stockRecording(t, bin, base, dir)
	return map[string][]byte{
		"records.jsonl":     b,
		"recording.jsonl":   recording,
		"hops-client.jsonl": client,
		"prompts.jsonl":     []byte(`{"id":"short","prompt":"Say hello."}` + "\n" + `{"id":"count","prompt":"Count to five."}` + "\n"),
		"prompt.txt":        []byte("Explain streaming in one sentence.\n"),
		"body.json":         []byte(`{"model":"steady","stream":true,"messages":[{"role":"user","content":"Say hello."}]}`),
		"drip.toml":         []byte("targets = [\"" + base + "\"]\nmodel = \"steady\"\n\n[workload]\nruns = 2\n"),
	}
}

// stockRecording is what drip record writes while drip run streams through
// it to the fixture server, and what drip run writes (drip hops reads the
// two together).
func stockRecording(t *testing.T, bin, base, dir string) (recording, client []byte) {
	path := filepath.Join(dir, "recording.jsonl")
	rec := exec.Command(bin, "record", "--listen", "127.0.0.1:0", "--upstream", base, "--out", path)
	stderr, _ := rec.StderrPipe()
	if err := rec.Start(); err != nil {
		t.Fatal(err)
	}
	line, _ := bufio.NewReader(stderr).ReadString('\n') // drip record: http://ADDR → …
	addr, _, _ := strings.Cut(strings.TrimPrefix(line, "drip record: "), " ")
	go io.Copy(io.Discard, stderr)
	clientPath := filepath.Join(dir, "hops-client.jsonl")
	out, err := exec.Command(bin, "run", addr, "-m", "steady", "--runs", "3", "--no-tui", "--out", clientPath).CombinedOutput()
	rec.Process.Signal(syscall.SIGINT)
	rec.Wait()
	if err != nil {
		t.Fatalf("making the stock recording through %q: %v\n%s", addr, err, out)
	}
	recording, _ = os.ReadFile(path)
	client, _ = os.ReadFile(clientPath)
	return recording, client
}

var (
	dripBinOnce sync.Once
	dripBinPath string
	dripBinErr  error
)

// dripBinary builds the drip binary once per test process.
func dripBinary(t testing.TB) string {
	dripBinOnce.Do(func() {
		dir, err := os.MkdirTemp("", "drip-docs-bin-")
		if err != nil {
			dripBinErr = err
			return
		}
		dripBinPath = filepath.Join(dir, "drip")
		if out, err := exec.Command("go", "build", "-o", dripBinPath, ".").CombinedOutput(); err != nil {
			dripBinErr = fmt.Errorf("build: %v\n%s", err, out)
		}
	})
	if dripBinErr != nil {
		t.Fatal(dripBinErr)
	}
	return dripBinPath
}

// The extraction itself, on lines shaped like the docs'.
func TestDocCommandParsing(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		line string
		ok   bool
		args []string
		code int
	}{
		{`drip run http://localhost:8000 -m my-model --runs 10                # repeated`, true, []string{"run", "http://localhost:8000", "-m", "my-model", "--runs", "10"}, 0},
		{`drip run http://x --fail-if 'ttft.p95 > 800ms' --fail-if "failed > 0"`, true, []string{"run", "http://x", "--fail-if", "ttft.p95 > 800ms", "--fail-if", "failed > 0"}, 0},
		{`drip compare a.jsonl b.jsonl --fail-if 'gap.p99 > +20ms'   # exits 1: the stall`, true, []string{"compare", "a.jsonl", "b.jsonl", "--fail-if", "gap.p99 > +20ms"}, 1},
		{`drip fixtures serve --addr 127.0.0.1:18393 &`, true, []string{"fixtures", "serve", "--addr", "127.0.0.1:18393"}, 0},
		{`drip run http://x --json | jq .throughput`, true, []string{"run", "http://x", "--json"}, 0},
		{`go run ./cmd/drip demo     # watch drip`, true, []string{"demo"}, 0},
		{`drip · run 7 · done 2.49 s`, false, nil, 0},
		{`drip compare · 2 runs · baseline A`, false, nil, 0},
		{`drip: interrupted`, false, nil, 0},
		{`drip run URL -m paced`, false, nil, 0},
		{`drip compare A.jsonl B.jsonl [C.jsonl …]`, false, nil, 0},
		{`go test ./...`, false, nil, 0},
	} {
		c, ok, _ := parseDocCommand(tc.line)
		if ok != tc.ok || ok && (strings.Join(c.args, "\x00") != strings.Join(tc.args, "\x00") || c.wantCode != tc.code) {
			t.Errorf("%s:\n  got ok=%v args %q code %d\n  want ok=%v args %q code %d", tc.line, ok, c.args, c.wantCode, tc.ok, tc.args, tc.code)
		}
	}
	args, server := docsRewrite([]string{"run", "https://api.openai.com/v1/responses?x=1", "--duration", "60s", "--runs=20", "--runs-per-level", "16"}, "http://127.0.0.1:9")
	if server || strings.Join(args, " ") != "run http://127.0.0.1:9/v1/responses?x=1 --duration 2s --runs=6 --runs-per-level 16" {
		t.Errorf("rewrite: %q server %v", args, server)
	}
	if _, server := docsRewrite([]string{"fixtures", "serve", "--addr", "127.0.0.1:8089"}, "http://b"); !server {
		t.Error("drip fixtures serve is not taken for a server")
	}
}
