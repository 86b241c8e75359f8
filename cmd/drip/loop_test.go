package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// loopSecret is in every credential a client of the loop test sends.
const loopSecret = "sk-LOOP-5ecret-77"

// TestRecordReplayGateEveryFormatRealBinary is the loop as a user runs it,
// with the real binary, in every format drip has (Bedrock's binary event
// stream included): drip record in front of drip fixtures serve, a client
// through it with credentials in every header it may use, then drip replay
// against the fixture server (the gates pass: exit 0) and against the
// recording served at half speed, a build twice as slow (the absolute and
// the relative TTFT gate trip: exit 1). No output holds the credential.
func TestRecordReplayGateEveryFormatRealBinary(t *testing.T) {
	t.Parallel()
	bin := builtDrip(t)
	dir := t.TempDir()
	rec := filepath.Join(dir, "rec.jsonl")
	fx, _ := startServing(t, bin, "fixtures", "serve", "--addr", "127.0.0.1:0")
	proxy, stopRecording := startServing(t, bin, "record", "--listen", "127.0.0.1:0", "--upstream", fx, "--out", rec)
	var wg sync.WaitGroup
	for _, format := range adapters.Names() {
		wg.Go(func() { streamWithCredentials(t, proxy, format) })
	}
	wg.Wait()
	if code := stopRecording(); code != 130 {
		t.Errorf("drip record after Ctrl-C: exit %d, want 130", code)
	}
	checkRecording(t, rec)

	slow, _ := startServing(t, bin, "fixtures", "serve", "--from", rec, "--speed", "0.5", "--addr", "127.0.0.1:0")
	gates := []string{"--fail-if", "ttft.p95 > +25%", "--fail-if", "ttft.p95 > 300ms", "--fail-if", "failed > 0"}
	for _, c := range []struct {
		name, against string
		code          int
		tripped       []bool
	}{
		{"the fixture server", fx, exitOK, []bool{false, false, false}},
		{"the recording at --speed 0.5", slow, exitGate, []bool{true, true, false}},
	} {
		out := filepath.Join(t.TempDir(), "replayed.jsonl")
		args := append([]string{"replay", rec, "--against", c.against, "--json", "--out", out}, gates...)
		stdout, stderr, code := runBinary(t, bin, args...)
		noSecret(t, "drip replay against "+c.name, stdout+stderr)
		if code != c.code {
			t.Errorf("replay against %s: exit %d, want %d\nstderr:\n%s", c.name, code, c.code, stderr)
		}
		var report struct {
			Gates []struct {
				Expr    string `json:"expr"`
				Tripped bool   `json:"tripped"`
				Message string `json:"message"`
			} `json:"gates"`
		}
		if err := json.Unmarshal([]byte(stdout), &report); err != nil || len(report.Gates) != len(c.tripped) {
			t.Fatalf("replay against %s: --json gates %+v (%v)\n%s", c.name, report.Gates, err, stdout)
		}
		for i, g := range report.Gates {
			if g.Tripped != c.tripped[i] {
				t.Errorf("replay against %s: gate %s tripped %v, want %v (%s)", c.name, g.Expr, g.Tripped, c.tripped[i], g.Message)
			}
		}
		checkReplayed(t, c.name, out)
	}
}

// startServing starts a drip command that serves until stopped and returns
// the URL it prints (drip fixtures serve on stdout, drip record on
// stderr), and stop, which sends it SIGINT (Ctrl-C) and returns its exit
// code. When the test ends it is killed if still running, and what it
// printed must not hold the credential.
func startServing(t *testing.T, bin string, args ...string) (base string, stop func() int) {
	t.Helper()
	prefix := "drip fixture server on "
	if args[0] == "record" {
		prefix = "drip record: "
	}
	out := &watchedOutput{prefix: prefix, found: make(chan string, 1)}
	cmd := exec.Command(bin, args...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan struct{})
	var waitErr error
	go func() { waitErr = cmd.Wait(); close(exited) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-exited
		noSecret(t, "drip "+args[0]+"'s output", out.String())
	})
	select {
	case line := <-out.found:
		u, _, _ := strings.Cut(strings.TrimPrefix(line, prefix), " ")
		return u, func() int {
			cmd.Process.Signal(syscall.SIGINT)
			<-exited
			return exitCodeOf(waitErr)
		}
	case <-exited:
	case <-time.After(30 * time.Second):
	}
	t.Fatalf("drip %s printed no %q line:\n%s", strings.Join(args, " "), prefix, out.String())
	return "", nil
}

// watchedOutput keeps a command's output and hands on the first line that
// starts with prefix.
type watchedOutput struct {
	mu     sync.Mutex
	buf    bytes.Buffer
	prefix string
	found  chan string
	seen   bool
}

func (w *watchedOutput) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf.Write(p)
	if w.seen {
		return len(p), nil
	}
	for _, line := range strings.SplitAfter(w.buf.String(), "\n") {
		if strings.HasPrefix(line, w.prefix) && strings.HasSuffix(line, "\n") {
			w.seen = true
			w.found <- strings.TrimSuffix(line, "\n")
			break
		}
	}
	return len(p), nil
}

func (w *watchedOutput) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.buf.String()
}

// streamWithCredentials streams the steady scenario in format through
// base with a credential in every header and query parameter a client may
// use, a SigV4 signature among them. Each format asks its own prompt: the
// generic formats share a path, and drip fixtures serve --from tells
// requests apart by body, then by model and path, never by query.
func streamWithCredentials(t *testing.T, base, format string) {
	f := adapters.Lookup(format)
	raw := base + "/generic/stream?format=" + format + "&key=" + loopSecret
	if f.Path != "" {
		raw = base + strings.ReplaceAll(f.Path, "{model}", "steady")
		raw += map[bool]string{true: "&", false: "?"}[strings.Contains(raw, "?")] + "api-key=" + loopSecret
	}
	h := http.Header{}
	for _, k := range []string{"X-Api-Key", "X-Goog-Api-Key", "Api-Key", "Cookie", "Proxy-Authorization", "X-Amz-Security-Token"} {
		h.Set(k, loopSecret)
	}
	h.Set("Authorization", "AWS4-HMAC-SHA256 Credential=AKIA/20260101/us-east-1/bedrock/aws4_request, SignedHeaders=host, Signature="+loopSecret)
	h.Set("X-Amz-Date", "20260101T000000Z")
	tgt := probe.Target{URL: raw, Format: f, Header: h, Request: adapters.Request{Model: "steady", Prompt: "hi in " + format}}
	r := probe.Stream(context.Background(), tgt, probe.Options{}, &record.Record{}, nil)
	if r.Status != record.StatusComplete {
		t.Errorf("%s: the client through drip record got %s (%+v)", format, r.Status, r.Error)
	}
}

// checkRecording reads what drip record wrote: one complete stream per
// format, each detected from the stream, and no credential.
func checkRecording(t *testing.T, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the recording", string(b))
	recs, skipped, err := record.ReadAll(bytes.NewReader(b), stats.Rederive)
	if err != nil || len(skipped) > 0 {
		t.Fatalf("reading the recording: %v %v", err, skipped)
	}
	got := map[string]string{}
	for _, r := range recs {
		got[r.Format] = string(r.Status)
	}
	for _, f := range adapters.Names() {
		if got[f] != string(record.StatusComplete) {
			t.Errorf("recorded %s: %q, want complete (all: %v)", f, got[f], got)
		}
	}
	if len(recs) != len(adapters.Names()) {
		t.Errorf("%d records for %d formats", len(recs), len(adapters.Names()))
	}
}

// checkReplayed reads drip replay --out: every format replayed, complete.
func checkReplayed(t *testing.T, against, path string) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	noSecret(t, "the replayed records", string(b))
	recs, _, _ := record.ReadAll(bytes.NewReader(b), stats.Rederive)
	got := map[string]string{}
	for _, r := range recs {
		got[r.Format] = string(r.Status)
	}
	for _, f := range adapters.Names() {
		if got[f] != string(record.StatusComplete) {
			t.Errorf("replayed %s against %s: %q, want complete (all: %v)", f, against, got[f], got)
		}
	}
}

func runBinary(t *testing.T, bin string, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	var o, e bytes.Buffer
	cmd.Stdout, cmd.Stderr = &o, &e
	code = exitCodeOf(cmd.Run())
	return o.String(), e.String(), code
}

func noSecret(t *testing.T, where, text string) {
	t.Helper()
	for _, s := range []string{loopSecret, url.QueryEscape(loopSecret), "5ecret"} {
		if i := strings.Index(text, s); i >= 0 {
			t.Errorf("%s shows the credential: …%s…", where, text[max(i-200, 0):min(i+40, len(text))])
			return
		}
	}
}
