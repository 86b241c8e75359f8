package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"testing/synctest"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/stats"
)

// seenRequests is what the server saw of each request: when it came, the
// prompt and max_tokens.
type seenRequests struct {
	mu   sync.Mutex
	h    http.Handler
	reqs []seenRequest
}

type seenRequest struct {
	at        time.Time
	prompt    string
	maxTokens int
}

func (s *seenRequests) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body struct {
		Messages  []struct{ Content string } `json:"messages"`
		MaxTokens int                        `json:"max_tokens"`
	}
	_ = json.Unmarshal(b, &body)
	q := seenRequest{at: time.Now(), maxTokens: body.MaxTokens}
	if len(body.Messages) > 0 {
		q.prompt = body.Messages[len(body.Messages)-1].Content
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, q)
	s.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	s.h.ServeHTTP(w, r)
}

// vLLM's flags run a ShareGPT file: the server sees the file's first
// turns as prompts and max_tokens their answers' lengths, and the summary
// names the dataset.
func TestRunShareGPTWithVLLMFlags(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &seenRequests{h: fixtures.NewServer()}
		srv := serveInMemory(t, s)
		code, stdout, stderr := drip(t, "run", srv.URL, "-m", "fast", "--dataset-name", "sharegpt",
			"--dataset-path", "../../probe/testdata/sharegpt.json", "--num-prompts", "3", "--seed", "1", "--json")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		want := map[string]int{
			"What is the boiling point of water at sea level, in Celsius?":      21,
			"Name three primary colours of light and say why screens use them.": 32,
			"Without an id: how many legs does a spider have?":                  14,
		}
		if len(s.reqs) != 3 {
			t.Fatalf("%d requests, want 3", len(s.reqs))
		}
		for _, q := range s.reqs {
			if n, ok := want[q.prompt]; !ok || n != q.maxTokens {
				t.Errorf("sent %q with max_tokens %d: not a prompt of the file with its answer's length", q.prompt, q.maxTokens)
			}
		}
		var sum stats.Summary
		if err := json.Unmarshal([]byte(stdout), &sum); err != nil || sum.Workload.Dataset != "sharegpt sharegpt.json" {
			t.Errorf("summary workload dataset %q (%v)", sum.Workload.Dataset, err)
		}
	})
}

// AIPerf's flags run a mooncake trace: each line reaches the server at
// its timestamp (exactly, on synctest's clock), with max_tokens its
// output_length and input_length words of prompt.
func TestRunMooncakeTraceWithAIPerfFlags(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		s := &seenRequests{h: fixtures.NewServer()}
		srv := serveInMemory(t, s)
		start := time.Now()
		code, _, stderr := drip(t, "run", srv.URL, "-m", "fast", "--input-file", "../../probe/testdata/trace.jsonl",
			"--custom-dataset-type", "mooncake_trace", "--fixed-schedule")
		if code != 0 {
			t.Fatalf("exit %d: %s", code, stderr)
		}
		if !strings.Contains(stderr, "a trace's timestamps (5 arrivals over 1.73 s") {
			t.Errorf("stderr does not describe the trace:\n%s", stderr)
		}
		// Lines 2 and 3 are due at once: the server may see either first.
		want := []string{"0s 600 12", "1.7305s 40 8", "1s 2 1", "250ms 20 5", "250ms 700 30"} // sorted as strings
		var got []string
		for _, q := range s.reqs {
			got = append(got, fmt.Sprintf("%v %d %d", q.at.Sub(start), len(strings.Fields(q.prompt)), q.maxTokens))
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("requests (at, words, max_tokens) %q, want %q", got, want)
		}
	})
}

// --burstiness makes gamma arrivals and a ramp (drip's --ramp or AIPerf's
// --request-rate-ramp-duration in seconds) raises the rate: the summary's
// workload says both.
func TestRunBurstinessAndRamp(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		for _, ramp := range [][]string{{"--ramp", "2s"}, {"--request-rate-ramp-duration", "2"}} {
			args := append([]string{"run", srv.URL, "-m", "fast", "--request-rate", "10", "--burstiness", "0.5", "--runs", "4", "--json"}, ramp...)
			code, stdout, stderr := drip(t, args...)
			if code != 0 {
				t.Fatalf("%v: exit %d: %s", ramp, code, stderr)
			}
			var sum stats.Summary
			if err := json.Unmarshal([]byte(stdout), &sum); err != nil {
				t.Fatal(err)
			}
			if w := sum.Workload; w.Arrival != "gamma" || w.Burstiness != 0.5 || w.Ramp != "2s" || sum.Streams.Completed != 4 {
				t.Errorf("%v: workload arrival %q burstiness %v ramp %q, %d completed", ramp, w.Arrival, w.Burstiness, w.Ramp, sum.Streams.Completed)
			}
		}
	})
}

// Flags that cannot go together are refused before anything is sent.
func TestDatasetFlagsRefused(t *testing.T) {
	t.Parallel()
	trace := "../../probe/testdata/trace.jsonl"
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"--burstiness", "2"}, "add --rate"},
		{[]string{"--rate", "2", "--arrival", "poisson", "--burstiness", "2"}, "drop --arrival poisson"},
		{[]string{"--trace", trace, "--rate", "3"}, "a trace's timestamps are its arrivals"},
		{[]string{"--trace", trace, "-p", "hi"}, "a dataset (--sharegpt, --trace) gives the prompts"},
		{[]string{"--dataset-name", "random"}, "--dataset-name random: drip reads sharegpt files"},
		{[]string{"--input-file", trace, "--custom-dataset-type", "multi_turn"}, "--custom-dataset-type multi_turn"},
		{[]string{"--ramp", "5s"}, "give --rate"},
	} {
		code, _, stderr := drip(t, append([]string{"run", "http://127.0.0.1:1"}, c.args...)...)
		if code != exitUsage || !strings.Contains(stderr, c.want) {
			t.Errorf("%v: exit %d, %q; want %d and %q", c.args, code, stderr, exitUsage, c.want)
		}
	}
}

// The lengths asked for are kept in the workload: compare of --input-tokens
// 16 against 400 says the workload differs, in the lengths asked.
func TestCompareInputTokensDiffer(t *testing.T) {
	synctest.Test(t, func(t *testing.T) {
		srv := serveInMemory(t, fixtures.NewServer())
		dir := t.TempDir()
		var files []string
		for _, n := range []string{"16", "400"} {
			out := filepath.Join(dir, n+".jsonl")
			if code, _, stderr := drip(t, "run", srv.URL, "-m", "fast", "--runs", "2", "--input-tokens", n, "--seed", "1", "--out", out); code != 0 {
				t.Fatalf("exit %d: %s", code, stderr)
			}
			files = append(files, out)
		}
		_, stdout, _ := drip(t, append([]string{"compare"}, files...)...)
		if !strings.Contains(stdout, "! workload differs") || !regexp.MustCompile(`lengths asked +A +input tokens 16\n +B +input tokens 400\n`).MatchString(stdout) {
			t.Errorf("compare does not say the lengths differ:\n%s", stdout)
		}
	})
}
