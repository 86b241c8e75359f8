package main

import (
	"encoding/json"
	"net/http/httptest"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"testing/synctest"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/report"
	"github.com/driplab/drip/stats"
)

func TestSweepUsageErrors(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--concurrency", "1,2,x"}, `"x" is not a finite number`},
		{[]string{"--concurrency", "1,2.5"}, "whole number"},
		{[]string{"--concurrency", "0,1"}, "at least 1"},
		{[]string{"--concurrency", "4,2"}, "must rise"},
		{[]string{"--rate", "1,NaN"}, "finite"},
		{[]string{"--rate", "1,Inf"}, "finite"},
		{[]string{"--rate", "0,1"}, "positive"},
		{[]string{"--concurrency", "1,2"}, "needs --runs-per-level"},
		{[]string{"--concurrency", "1,2", "--runs-per-level", "2", "--runs", "4"}, "not --runs or --duration"},
		{[]string{"--concurrency", "1,2", "--runs-per-level", "-1"}, "must not be negative"},
		{[]string{"--concurrency", "1,2", "--runs-per-level", "0"}, "needs a --duration-per-level"},
		{[]string{"--concurrency", "1,2", "--runs-per-level", "2", "--stop-when", "ttft.p95 >"}, "--stop-when: gate"},
		{[]string{"--concurrency", "1,2", "--runs-per-level", "2", "--stop-when", "ttft.p95 > +10%"}, "relative"},
		{[]string{"--concurrency", "1,2", "--runs-per-level", "2", "--markdown", "--json"}, "pick one"},
		{[]string{"--stop-when", "failed > 0"}, "belong to a sweep"},
		{[]string{"--concurrency", "1,8", "--runs-per-level", "4"}, "below concurrency 8"},
		{[]string{"--markdown"}, "belong to a sweep"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1", "--no-tui"}, tc.args...)...)
		if code != exitUsage || !strings.Contains(stderr, tc.want) {
			t.Errorf("%v: exit %d, stderr %q; want %d and %q", tc.args, code, stderr, exitUsage, tc.want)
		}
		if strings.Contains(tc.want, "number") || strings.Contains(tc.want, "rise") || strings.Contains(tc.want, "least") || strings.Contains(tc.want, "positive") {
			if !strings.Contains(stderr, "--"+strings.TrimPrefix(tc.args[0], "--")) {
				t.Errorf("%v: the error %q does not name the flag", tc.args, stderr)
			}
		}
	}
}

// TestSweepHeadlessJSON runs a two-level sweep: the summary carries the
// sweep object and every record its level.
func TestSweepHeadlessJSON(t *testing.T) { synctest.Test(t, testSweepHeadlessJSON) }

func testSweepHeadlessJSON(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewSlots(fixtures.NewServer(), 4))
	out := filepath.Join(t.TempDir(), "sweep.jsonl")
	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "steady", "--concurrency", "1,2", "--runs-per-level", "2", "--json", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var s struct {
		stats.Summary
		Sweep struct {
			Kind   string `json:"kind"`
			Levels []struct {
				Level       float64          `json:"level"`
				Concurrency int              `json:"concurrency"`
				Streams     int              `json:"streams"`
				Completed   int              `json:"completed"`
				Metrics     stats.Metrics    `json:"metrics"`
				Throughput  stats.Throughput `json:"throughput"`
				Goodput     *float64         `json:"goodput"`
			} `json:"levels"`
			Knee    *json.RawMessage `json:"knee"`
			Stopped *string          `json:"stopped"`
		} `json:"sweep"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatalf("--json: %v\n%s", err, stdout)
	}
	sw := s.Sweep
	if sw.Kind != "concurrency" || len(sw.Levels) != 2 || sw.Stopped != nil || sw.Knee != nil {
		t.Fatalf("sweep %+v; want two concurrency levels, no knee, not stopped", sw)
	}
	for i, l := range sw.Levels {
		if l.Level != float64(i+1) || l.Concurrency != i+1 || l.Streams != 2 || l.Completed != 2 || l.Metrics["ttft_ms"].N != 2 || l.Throughput.TokensPerS == nil || l.Goodput != nil {
			t.Errorf("level %d: %+v", i, l)
		}
	}
	if s.Streams.Completed != 4 || !strings.Contains(stderr, "sweep of concurrency 1,2") {
		t.Errorf("summary streams %+v; stderr %q", s.Streams, stderr)
	}
	recs := readRecords(t, out)
	if len(recs) != 4 {
		t.Fatalf("%d records, want 4", len(recs))
	}
	for _, r := range recs {
		if r.Level == nil || r.Workload == nil || float64(r.Workload.Concurrency) != *r.Level {
			t.Errorf("record %d: level %v workload %+v", r.Seq, r.Level, r.Workload)
		}
	}
}

// TestSweepKneeAndStopFromTheCLI is the acceptance through drip run:
// against 4 slots, --concurrency 1,2,4,8,16 marks the knee at 8 in the
// text report and the Markdown table, and --stop-when ends the sweep at
// the level where it first holds, saying so.
func TestSweepKneeAndStopFromTheCLI(t *testing.T) { synctest.Test(t, testSweepKneeAndStopFromTheCLI) }

func testSweepKneeAndStopFromTheCLI(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewSlots(fixtures.NewServer(), 4))
	args := []string{"run", srv.URL, "-m", "steady", "--concurrency", "1,2,4,8,16", "--runs-per-level", "16", "--warmup", "1"}
	code, stdout, stderr := drip(t, args...)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	if flat := strings.Join(strings.Fields(stdout), " "); !strings.Contains(flat, "knee: at concurrency 8 ttft p95 rose") || !strings.Contains(flat, "throughput did not follow") {
		t.Errorf("text report without the knee at 8:\n%s", stdout)
	}
	code, stdout, stderr = drip(t, append(args, "--markdown")...)
	if code != exitOK || !strings.Contains(stdout, "| 8 | 16 | 0 |") || !strings.Contains(stdout, "**◀ knee** |") || strings.Contains(stdout, "conventions") {
		t.Errorf("--markdown: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
	code, stdout, stderr = drip(t, append(args, "--stop-when", "ttft.p95 > 1s")...)
	if code != exitOK || !strings.Contains(stdout, "stopped: --stop-when 'ttft.p95 > 1s' held at concurrency 8") || strings.Contains(stderr, "concurrency 16 done") {
		t.Errorf("--stop-when: exit %d, stdout:\n%s\nstderr:\n%s", code, stdout, stderr)
	}
}

// TestCompareByLevel: a sweep's saved records, compared by level, get the
// per-level table recomputed from them, the knee and the plots by level;
// --markdown the table too.
func TestCompareByLevel(t *testing.T) { synctest.Test(t, testCompareByLevel) }

func testCompareByLevel(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewSlots(fixtures.NewServer(), 4))
	out := filepath.Join(t.TempDir(), "sweep.jsonl")
	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "steady", "--concurrency", "1,2,4,8", "--runs-per-level", "8", "--out", out)
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	runTable := stdout[strings.Index(stdout, "sweep · concurrency"):]
	for l := range strings.Lines(runTable) { // the table, the prose and the plots by level
		if w := ansi.StringWidth(strings.TrimSuffix(l, "\n")); w > report.Width {
			t.Errorf("a line of the sweep's report is %d columns, over %d: %q", w, report.Width, l)
		}
	}
	code, stdout, stderr = drip(t, "compare", "--by", "level", out, "--no-tui")
	if code != exitOK {
		t.Fatalf("compare --by level: exit %d; stderr:\n%s", code, stderr)
	}
	for _, want := range []string{"level=1", "level=8", "knee: at concurrency 8 ttft p95 rose", "tok/s by conc", "ttft p95 by conc", "gap p99 by conc"} {
		if !strings.Contains(stdout, want) {
			t.Errorf("compare --by level lacks %q:\n%s", want, stdout)
		}
	}
	if !strings.Contains(stdout, runTable[:strings.Index(runTable, "\n  conc: ")]) {
		t.Errorf("the table recomputed from the records differs from the run's:\nrun:\n%s\ncompare:\n%s", runTable, stdout)
	}
	code, stdout, _ = drip(t, "compare", "--by", "level", out, "--markdown")
	if code != exitOK || !strings.Contains(stdout, "### drip sweep: concurrency 1,2,4,8") || !strings.Contains(stdout, "**◀ knee**") {
		t.Errorf("compare --by level --markdown: exit %d:\n%s", code, stdout)
	}
}

// TestSweepGoodput: with --slo every level reports its goodput (the table
// gains the column), and --stop-when can stop on it. Against 4 slots, at
// concurrency 8 half the streams wait a whole stream for their first
// token: only the first 4 of its 16 streams meet ttft<500ms (each later
// one waits for a slot a whole stream), so its goodput is 25%.
func TestSweepGoodput(t *testing.T) { synctest.Test(t, testSweepGoodput) }

func testSweepGoodput(t *testing.T) {
	srv := serveInMemory(t, fixtures.NewSlots(fixtures.NewServer(), 4))
	code, stdout, stderr := drip(t, "run", srv.URL, "-m", "steady", "--concurrency", "2,4,8,16", "--runs-per-level", "16",
		"--slo", "ttft<500ms", "--stop-when", "goodput < 90", "--json")
	if code != exitOK {
		t.Fatalf("exit %d; stderr:\n%s", code, stderr)
	}
	var s struct {
		Sweep struct {
			Levels []struct {
				Level   float64  `json:"level"`
				Goodput *float64 `json:"goodput"`
			} `json:"levels"`
			Stopped *string `json:"stopped"`
		} `json:"sweep"`
	}
	if err := json.Unmarshal([]byte(stdout), &s); err != nil {
		t.Fatal(err)
	}
	want := []float64{100, 100, 25}
	if len(s.Sweep.Levels) != len(want) || s.Sweep.Stopped == nil || !strings.Contains(*s.Sweep.Stopped, "goodput < 90' held at concurrency 8") {
		t.Fatalf("levels %+v stopped %v; want 2, 4 and 8, stopped at 8 by goodput < 90", s.Sweep.Levels, s.Sweep.Stopped)
	}
	for i, l := range s.Sweep.Levels {
		if l.Goodput == nil || *l.Goodput != want[i] {
			got, _ := json.Marshal(l.Goodput) // null when undefined
			t.Errorf("concurrency %v: goodput %s; want %v", l.Level, got, want[i])
		}
	}
	code, stdout, _ = drip(t, "run", srv.URL, "-m", "steady", "--concurrency", "2,4", "--runs-per-level", "4", "--slo", "ttft<500ms", "--markdown")
	if code != exitOK || !strings.Contains(stdout, "| goodput % |") {
		t.Errorf("--markdown with --slo: exit %d, no goodput column:\n%s", code, stdout)
	}
	code, _, stderr = drip(t, "run", srv.URL, "--concurrency", "2,4", "--runs-per-level", "4", "--stop-when", "goodput < 90")
	if code != exitUsage || !strings.Contains(stderr, "add --slo") {
		t.Errorf("--stop-when goodput without --slo: exit %d, stderr %q; want %d and add --slo", code, stderr, exitUsage)
	}
}

// A sweep with --metrics-addr says where /metrics is, as drip run does:
// the line used to go to a discarded writer, leaving the user to guess the
// port of :0.
func TestSweepSaysWhereMetricsAre(t *testing.T) {
	t.Parallel()
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	code, _, stderr := drip(t, "run", srv.URL, "-m", "fast", "--concurrency", "1,2", "--runs-per-level", "2", "--metrics-addr", "127.0.0.1:0", "--no-tui")
	line := regexp.MustCompile(`(?m)^drip: metrics on http://127\.0\.0\.1:([1-9][0-9]*)/metrics$`)
	if code != exitOK || !line.MatchString(stderr) || !strings.Contains(stderr, "sweep of concurrency 1,2") {
		t.Errorf("exit %d; stderr:\n%s\nwant exit 0, the metrics line with its port and the sweep's line", code, stderr)
	}
}
