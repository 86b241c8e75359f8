package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"testing/synctest"
	"time"

	tea "charm.land/bubbletea/v2"
	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/interrupt"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
	"github.com/driplab/drip/tui"
)

func TestRunWorkloadUsageErrors(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	dup := filepath.Join(dir, "dup.jsonl")
	os.WriteFile(dup, []byte(`{"id":"p1","prompt":"x"}`+"\n"), 0o600)
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"id":"a","prompt":"x"}`+"\n{oops\n"), 0o600)
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--rate", "5", "--concurrency", "2"}, "pick one"},
		{[]string{"--arrival", "poisson"}, "add --rate"},
		{[]string{"--rate", "5", "--arrival", "bursty"}, "constant, poisson or gamma"},
		{[]string{"--prompts", "mine"}, "builtin"},
		{[]string{"--runs", "0"}, "needs a --duration"},
		{[]string{"--concurrency", "0"}, "at least 1"},
		{[]string{"--rate", "5", "--max-inflight", "0"}, "at least 1"},
		{[]string{"-p", "a", "--prompt-file", dup}, `-p/--prompt-file: prompt id "p1" appears twice`},
		{[]string{"--prompt-file", bad}, "bad.jsonl: line 2:"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
	}
}

func TestRunPromptSetReport(t *testing.T) { synctest.Test(t, testRunPromptSetReport) }

func testRunPromptSetReport(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	out := filepath.Join(t.TempDir(), "runs.jsonl")
	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "in-stream-error", "--prompts", "builtin", "-p", "Hello?",
		"--runs", "8", "--warmup", "1", "--concurrency", "2", "--seed", "3", "--out", out)
	if code != exitCannotGo { // every stream of in-stream-error fails: no measured stream completed
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	for _, want := range []string{"seed 3", "closed loop, 2 in flight", "4 prompts"} {
		if !strings.Contains(stderr, want) {
			t.Errorf("stderr lacks %q:\n%s", want, stderr)
		}
	}
	for _, want := range []string{"order     shuffled per round (each of the 4 prompts once per round), seed 3",
		"prompt ", "short ", "medium ", "long ", "p1 ", "1 warmup stream per prompt before measuring", "8 attempted · 8 admitted"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("report lacks %q:\n%s", want, stdout)
		}
	}
	recs := readRecords(t, out)
	if len(recs) != 12 {
		t.Fatalf("%d records, want 12", len(recs))
	}
	for _, r := range recs {
		if r.PromptID == "" || r.Workload == nil || r.Workload.Concurrency != 2 {
			t.Errorf("record %d: prompt %q workload %+v", r.Seq, r.PromptID, r.Workload)
		}
	}
}

func TestRunOpenLoopReport(t *testing.T) { synctest.Test(t, testRunOpenLoopReport) }

func testRunOpenLoopReport(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "in-stream-error", "--rate", "40", "--arrival", "poisson",
		"--runs", "10", "--seed", "5", "--json")
	if code != exitCannotGo { // every stream of in-stream-error fails: no measured stream completed
		t.Fatalf("exit %d\n%s", code, stderr)
	}
	var s stats.Summary
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	ol := s.OpenLoop
	if ol == nil || ol.ScheduleLag.N != 10 || ol.TTFTUser.N != 10 || ol.ClientQueue.N != 10 || s.Workload.Arrival != "poisson" || s.Workload.Seed != 5 {
		t.Fatalf("open loop %+v workload %+v", ol, s.Workload)
	}
	code, stdout, _ = drip(t, "run", srv.URL, "-m", "in-stream-error", "--rate", "40", "--runs", "4")
	for _, want := range []string{"open loop constant arrivals at 40.00/s", "schedule lag p50", "ttft, from intended (user)", "client queue (difference)"} {
		if code != exitCannotGo || !strings.Contains(stdout, want) {
			t.Errorf("exit %d; report lacks %q:\n%s", code, want, stdout)
		}
	}
}

// Ctrl-C against the real binary: the run stops admitting, cancels the
// streams in flight, keeps every finished record and the canceled partial
// ones as valid JSON Lines, prints the summary and exits within 2 s.
func TestRunInterruptRealBinary(t *testing.T) {
	t.Parallel()
	bin := builtDrip(t)
	dir := t.TempDir()
	fx := exec.Command(bin, "fixtures", "serve", "--addr", "127.0.0.1:0")
	fxOut, _ := fx.StdoutPipe()
	if err := fx.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { fx.Process.Signal(syscall.SIGTERM); fx.Wait() }()
	first, _ := bufio.NewReader(fxOut).ReadString('\n')
	base := first[strings.Index(first, "http://") : len(first)-1]

	out := filepath.Join(dir, "runs.jsonl")
	var stdout, stderr bytes.Buffer
	run := exec.Command(bin, "run", base, "-m", "long", "--concurrency", "6", "--runs", "30", "--out", out, "--no-tui")
	run.Stdout, run.Stderr = &stdout, &stderr
	if err := run.Start(); err != nil {
		t.Fatal(err)
	}
	// Wait for the first six streams (about 10 s each) to be recorded, then
	// a second more so the next six are in flight with frames.
	deadline := time.Now().Add(40 * time.Second)
	for {
		b, _ := os.ReadFile(out)
		if bytes.Count(b, []byte("\n")) >= 6 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("no six records within 40 s; stderr:\n%s", stderr.String())
		}
		time.Sleep(100 * time.Millisecond)
	}
	time.Sleep(time.Second)
	sent := time.Now()
	run.Process.Signal(syscall.SIGINT)
	err := run.Wait()
	took := time.Since(sent)
	t.Logf("exited %v after SIGINT (err %v)", took, err)
	if code := run.ProcessState.ExitCode(); code != 130 {
		t.Errorf("exit %d after SIGINT, want 130", code)
	}
	if took > 2*time.Second {
		t.Errorf("took %v to exit after SIGINT, want ≤ 2 s", took)
	}
	f, _ := os.Open(out)
	defer f.Close()
	recs, skipped, rerr := record.ReadAll(f, stats.Rederive)
	if rerr != nil || len(skipped) > 0 {
		t.Fatalf("JSONL not valid: %v %v", rerr, skipped)
	}
	complete, canceled := 0, 0
	for _, r := range recs {
		switch r.Status {
		case record.StatusComplete:
			complete++
		case record.StatusCanceled:
			canceled++
			if len(r.Frames) == 0 || r.Error.Class != record.ErrCanceled {
				t.Errorf("canceled record %d: %d frames, error %+v", r.Seq, len(r.Frames), r.Error)
			}
		}
	}
	t.Logf("%d records: %d complete, %d canceled", len(recs), complete, canceled)
	if complete < 6 || canceled != 6 || complete+canceled != len(recs) {
		t.Errorf("%d records: %d complete, %d canceled; want ≥ 6 complete and 6 canceled", len(recs), complete, canceled)
	}
	if !strings.Contains(stdout.String(), "canceled") || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("no summary after the interrupt:\nstdout:\n%s\nstderr:\n%s", stdout.String(), stderr.String())
	}
}

// headlessProgram runs the live view without a terminal, as a user with a
// 120×40 one; filter plays the user.
func headlessProgram(filter func(*tui.Model, tea.Msg) tea.Msg) []tea.ProgramOption {
	return []tea.ProgramOption{
		tea.WithInput(nil), tea.WithOutput(io.Discard), tea.WithWindowSize(120, 40), tea.WithoutSignals(),
		tea.WithFilter(func(m tea.Model, msg tea.Msg) tea.Msg { return filter(m.(*tui.Model), msg) }),
	}
}

// TestRunScreenEqualsReport runs a workload on the run screen to its end:
// the summary the screen shows is the one printed after it closes (the
// headless report of the same aggregate), and the records are on disk.
func TestRunScreenEqualsReport(t *testing.T) { synctest.Test(t, testRunScreenEqualsReport) }

func testRunScreenEqualsReport(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewServer())
	tg, o, err := fixtureTarget(srv.URL, "mid-sentence-stall")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	plan := probe.Plan{Target: tg, Options: o, Prompts: probe.BuiltinPrompts(), Runs: 6, Warmup: 1, Concurrency: 6, Seed: 7}
	var (
		screen string
		shown  stats.Summary
	)
	opts := headlessProgram(func(m *tui.Model, msg tea.Msg) tea.Msg {
		if m.RunFinished() && screen == "" {
			screen = strings.ReplaceAll(ansi.Strip(m.View().Content), "\u00a0", " ")
			shown = m.RunSummary()
			return tea.QuitMsg{}
		}
		return msg
	})
	var stdout, stderr bytes.Buffer
	if err := runLive(context.Background(), &stdout, &stderr, plan, &outputFlags{json: true, out: path}, opts...); err != nil {
		t.Fatal(err, stderr.String())
	}
	var printed stats.Summary
	if err := json.Unmarshal(stdout.Bytes(), &printed); err != nil {
		t.Fatal(err, stdout.String())
	}
	a, _ := json.Marshal(shown)
	b, _ := json.Marshal(printed)
	if !bytes.Equal(a, b) {
		t.Errorf("the screen's summary differs from the printed one:\n%s\n%s", a, b)
	}
	ttft, gap := printed.Metrics["ttft_ms"], printed.Metrics["gap_ms"]
	for _, want := range []string{
		"finished", "6/6 recorded", fmt.Sprintf("completed %d", printed.Streams.Completed), "warmup 3 (excluded)",
		fmt.Sprintf("ttft p50 %s p99 %s n=%d", textfmt.OptMS(ttft.P50), textfmt.OptMS(ttft.P99), ttft.N),
		fmt.Sprintf("gap p50 %s p99 %s n=%d", textfmt.OptMS(gap.P50), textfmt.OptMS(gap.P99), gap.N),
		fmt.Sprintf("stalls %d (%d mid-sentence)", printed.Stalls.Count, printed.Stalls.MidSentence),
	} {
		if !strings.Contains(screen, want) {
			t.Errorf("the screen lacks %q", want)
		}
	}
	if t.Failed() {
		t.Log("\n" + screen)
	}
	if recs := readRecords(t, path); len(recs) != 9 {
		t.Errorf("--out: %d records, want 9 (3 warmup)", len(recs))
	}
}

// TestRunScreenQuit: q on the run screen stops admitting, cancels the
// streams in flight (recorded, canceled, with their frames), writes them,
// and the report of what was recorded follows within 2 s (of the bubble's clock:
// the time drip takes to wind down, not the machine's load). Ctrl-C does
// the same and ends the command as SIGINT does (130, as --help says); q
// leaves no signal.
func TestRunScreenQuit(t *testing.T) {
	for _, k := range []struct {
		key  tea.KeyPressMsg
		want os.Signal
	}{
		{tea.KeyPressMsg{Code: 'q', Text: "q"}, nil},
		{tea.KeyPressMsg{Code: 'c', Mod: tea.ModCtrl}, os.Interrupt},
	} {
		t.Run(k.key.String(), func(t *testing.T) {
			synctest.Test(t, func(t *testing.T) {
				ctx, caught, stop := interrupt.Catch()
				defer stop()
				testRunScreenQuit(t, ctx, k.key)
				if got := caught(); got != k.want {
					t.Errorf("after %s the command ends as signal %v, want %v", k.key, got, k.want)
				}
			})
		})
	}
}

func testRunScreenQuit(t *testing.T, ctx context.Context, quitKey tea.KeyPressMsg) {
	srv := serveInMemory(t, fixtures.NewServer())
	tg, o, err := fixtureTarget(srv.URL, "long")
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "runs.jsonl")
	plan := probe.Plan{Target: tg, Options: o, PromptID: "p0", Runs: 20, Concurrency: 4}
	var quit time.Time
	opts := headlessProgram(func(m *tui.Model, msg tea.Msg) tea.Msg {
		// Quit once all four stream: the streams table shows them so.
		if quit.IsZero() && strings.Count(m.View().Content, "streaming") >= 4 {
			quit = time.Now()
			return quitKey
		}
		return msg
	})
	var stdout, stderr bytes.Buffer
	err = runLive(ctx, &stdout, &stderr, plan, &outputFlags{out: path}, opts...)
	took := time.Since(quit)
	if err != nil {
		t.Fatal(err, stderr.String())
	}
	t.Logf("returned %v after %s", took, quitKey)
	if took > 2*time.Second {
		t.Errorf("took %v after %s, want ≤ 2 s", took, quitKey)
	}
	f, _ := os.Open(path)
	defer f.Close()
	recs, skipped, err := record.ReadAll(f, stats.Rederive)
	if err != nil || len(skipped) > 0 || len(recs) != 4 {
		t.Fatalf("--out: %d records, %v %v; want 4", len(recs), err, skipped)
	}
	for _, r := range recs {
		if r.Status != record.StatusCanceled || len(r.Frames) == 0 {
			t.Errorf("record %d: %s with %d frames, want canceled with frames", r.Seq, r.Status, len(r.Frames))
		}
	}
	if !strings.Contains(stdout.String(), "4 canceled") || !strings.Contains(stderr.String(), "interrupted") {
		t.Errorf("no report after %s:\nstdout:\n%s\nstderr:\n%s", quitKey, stdout.String(), stderr.String())
	}
}

// The headless log numbers streams as every screen does (#1 is seq 0,
// views/run_table.go), a stream that failed before any content shows no
// token count rather than 0 approximated, and a line fits 80 columns
// unless it carries an error's message: stalls and a long prompt id (cut
// with …) included; the warmup streams are under a line saying so.
func TestProgressLinesNumberStreamsAsTheScreens(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	prompts := filepath.Join(t.TempDir(), "prompts.jsonl")
	if err := os.WriteFile(prompts, []byte(`{"id":"a-prompt-id-longer-than-twelve","prompt":"hi"}`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, model := range []string{"steady", "mid-sentence-stall", "rate-limited"} {
		out := filepath.Join(t.TempDir(), "runs.jsonl")
		_, _, stderr := drip(t, "run", srv.URL, "-m", model, "--runs", "2", "--warmup", "1", "--prompt-file", prompts, "--no-tui", "--out", out)
		recs := readRecords(t, out)
		if len(recs) != 3 {
			t.Fatalf("%s: %d records, want 1 warmup and 2 measured", model, len(recs))
		}
		for _, r := range recs {
			line := strings.TrimSuffix(lineWith(stderr, fmt.Sprintf("  #%-3d a-prompt-id…", r.Seq+1)), "\n")
			if line == "" {
				t.Errorf("%s: no progress line #%d for seq %d in\n%s", model, r.Seq+1, r.Seq, stderr)
				continue
			}
			if wantNone := model == "rate-limited"; wantNone != strings.Contains(line, "— tok") {
				t.Errorf("%s: seq %d has token count %v, progress line %q", model, r.Seq, !wantNone, line)
			}
			if (len(r.Stalls) > 0) != strings.Contains(line, " stall") {
				t.Errorf("%s: seq %d with %d stalls: progress line %q", model, r.Seq, len(r.Stalls), line)
			}
			// Line keeps to 78 columns unless the stream has more to say. A
			// machine under load can make even the steady scenario stutter.
			moreToSay := r.Error != nil || r.Buffered || r.HeldMS != nil || r.Delivery != nil && r.Delivery.Freezes != nil
			if w := ansi.StringWidth(line); w > 80 && !moreToSay {
				t.Errorf("%s: progress line of %d columns, over 80: %q", model, w, line)
			}
		}
		if !strings.Contains(stderr, "\n  warmup, excluded from every figure:\n  #1 ") || !strings.Contains(stderr, "\n  measured:\n  #2 ") {
			t.Errorf("%s: the log does not say which lines are warmup and which measured:\n%s", model, stderr)
		}
		if lineWith(stderr, "  #0 ") != "" {
			t.Errorf("%s: a progress line numbered #0:\n%s", model, stderr)
		}
	}
}

func lineWith(text, s string) string {
	for l := range strings.Lines(text) {
		if strings.Contains(l, s) {
			return l
		}
	}
	return ""
}
