package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/fleet"
	"github.com/driplab/drip/internal/textfmt"
	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// stream is what a sharded run must reproduce of each stream.
type stream struct {
	Seq      int
	Phase    string
	Prompt   string
	Intended float64 // the open loop's schedule time (ms from the run's start)
}

// same compares streams, schedule times to within 25 ms, half the 50 ms
// between arrivals. That still tells every slot from its neighbour, and it
// leaves room for each process's schedule to start a moment after its run
// does, a moment that grows when the machine is busy.
func same(a, b stream) bool {
	return a.Seq == b.Seq && a.Phase == b.Phase && a.Prompt == b.Prompt && math.Abs(a.Intended-b.Intended) < 25
}

func streamsOf(recs []*record.Record) []stream {
	var out []stream
	for _, r := range recs {
		s := stream{Seq: r.Seq, Phase: r.Phase, Prompt: r.PromptID}
		if r.IntendedStartMS != nil {
			s.Intended = *r.IntendedStartMS
		}
		out = append(out, s)
	}
	slices.SortFunc(out, func(a, b stream) int { return a.Seq - b.Seq })
	return out
}

// N agents, as N processes of the real binary with JOB_COMPLETION_INDEX
// set as a Kubernetes Indexed Job sets it, run one seeded workload; merged,
// their records have the single agent's accounting, prompt order, seqs
// and (open loop) schedule.
func TestShardedRunEqualsOneAgent(t *testing.T) {
	t.Parallel()
	if testing.Short() {
		t.Skip("builds the binary and runs it as four processes")
	}
	bin := dripBinary(t)
	srv := httptest.NewServer(fixtures.NewServer())
	defer srv.Close()
	for _, tc := range []struct {
		name string
		load []string
	}{
		{"closed loop", []string{"--runs", "7", "--concurrency", "2", "--warmup", "1"}},
		{"open loop", []string{"--runs", "7", "--rate", "20"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			args := append([]string{"run", srv.URL, "-m", "buffered-burst", "-p", "a", "-p", "b", "-p", "c", "--seed", "42", "--no-tui"}, tc.load...)
			single := filepath.Join(dir, "single.jsonl")
			singleSum := runDrip(t, bin, nil, slices.Concat(args, []string{"--out", single, "--json"}))
			var wg sync.WaitGroup
			shards, shardSums := make([]string, 3), make([]string, 3)
			for i := range shards {
				shards[i] = filepath.Join(dir, fmt.Sprintf("shard-%d.jsonl", i))
				wg.Go(func() {
					shardSums[i] = runDrip(t, bin, []string{fmt.Sprintf("JOB_COMPLETION_INDEX=%d", i)}, slices.Concat(args, []string{"--shards", "3", "--out", shards[i], "--json"}))
				})
			}
			wg.Wait()
			mergedShareEqualsOneAgent(t, singleSum, shardSums)
			merged := filepath.Join(dir, "merged.jsonl")
			runDrip(t, bin, nil, append([]string{"merge", "--out", merged}, shards...))
			if code, stderr := mergeExit(bin, merged+".part", shards[:2]); code != 2 || !strings.Contains(stderr, "shard 2/3 is missing") {
				t.Errorf("merging 2 of 3 shards: exit %d, stderr %q; want 2, naming shard 2/3", code, stderr)
			}

			one, all := readRecords(t, single), readRecords(t, merged)
			if got, want := streamsOf(all), streamsOf(one); !slices.EqualFunc(got, want, same) {
				t.Errorf("merged shards sent\n%v\none agent sent\n%v", got, want)
			}
			a, b := summaryOf(one), summaryOf(all)
			if ja, jb := accounting(a), accounting(b); ja != jb {
				t.Errorf("merged accounting %s, one agent's %s", jb, ja)
			}
			runIDs := map[string]bool{}
			for _, r := range all {
				runIDs[r.RunID] = true
			}
			if len(runIDs) != 1 {
				t.Errorf("the shards wrote %d run ids, want one run", len(runIDs))
			}
		})
	}
}

// mergedShareEqualsOneAgent pools the shards' --json summaries as drip
// merge --summaries does: tokens_approx_pct and the streams it is a share
// of come out as the one agent's.
func mergedShareEqualsOneAgent(t *testing.T, single string, shards []string) {
	t.Helper()
	var one stats.Summary
	if err := json.Unmarshal([]byte(single), &one); err != nil {
		t.Fatalf("one agent's summary: %v", err)
	}
	sums := make([]stats.Summary, len(shards))
	for i, out := range shards {
		if err := json.Unmarshal([]byte(out), &sums[i]); err != nil {
			t.Fatalf("shard %d's summary: %v", i, err)
		}
	}
	m, err := fleet.MergeSummaries(sums, []string{"0", "1", "2"})
	if err != nil {
		t.Fatal(err)
	}
	if m.Streams.WithTokenCount != one.Streams.WithTokenCount || textfmt.Num(m.TokensApproxPct) != textfmt.Num(one.TokensApproxPct) {
		t.Errorf("merged summaries: tokens_approx_pct %s of %d streams with a token count; one agent %s of %d",
			textfmt.Num(m.TokensApproxPct), m.Streams.WithTokenCount, textfmt.Num(one.TokensApproxPct), one.Streams.WithTokenCount)
	}
}

func runDrip(t *testing.T, bin string, env, args []string) string {
	t.Helper()
	cmd := exec.Command(bin, args...)
	cmd.Env = append(os.Environ(), env...)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Errorf("drip %s %v: %v\n%s", strings.Join(args, " "), env, err, stderr.String())
	}
	return stdout.String()
}

// mergeExit runs drip merge and returns its exit code and stderr.
func mergeExit(bin, out string, files []string) (int, string) {
	var stderr bytes.Buffer
	cmd := exec.Command(bin, append([]string{"merge", "--out", out}, files...)...)
	cmd.Stderr = &stderr
	cmd.Run()
	return cmd.ProcessState.ExitCode(), stderr.String()
}

func summaryOf(recs []*record.Record) stats.Summary {
	agg := stats.NewAggregate(stats.DefaultStall)
	for _, r := range recs {
		agg.Add(r)
	}
	return agg.Summary(stats.Workload{})
}

func accounting(s stats.Summary) string {
	b, _ := json.Marshal(struct {
		Streams stats.Streams
		Tokens  int
		TTFTN   int
		GapN    int
	}{s.Streams, s.Throughput.OutputTokens, s.Metrics["ttft_ms"].N, s.Metrics["gap_ms"].N})
	return string(b)
}
