package probe_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/driplab/drip/fixtures"
	"github.com/driplab/drip/internal/memnet"
	"github.com/driplab/drip/probe"
)

// sent is what a server saw of each request: when it came and its body's
// prompt and max_tokens.
type sent struct {
	mu   sync.Mutex
	h    http.Handler
	reqs []sentReq
}

type sentReq struct {
	at        time.Time
	prompt    string
	maxTokens int
}

func (s *sent) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	b, _ := io.ReadAll(r.Body)
	var body struct {
		Messages []struct {
			Content string `json:"content"`
		} `json:"messages"`
		MaxTokens int `json:"max_tokens"`
	}
	_ = json.Unmarshal(b, &body)
	q := sentReq{at: time.Now(), maxTokens: body.MaxTokens}
	if len(body.Messages) > 0 {
		q.prompt = body.Messages[len(body.Messages)-1].Content
	}
	s.mu.Lock()
	s.reqs = append(s.reqs, q)
	s.mu.Unlock()
	r.Body = io.NopCloser(bytes.NewReader(b))
	s.h.ServeHTTP(w, r)
}

// A mooncake trace drives the open loop: the server sees each line's
// request at its timestamp (exactly, on synctest's clock), in the file's
// order, with input_length words of prompt (text_input as is) and
// output_length as max_tokens; lines that share a hash id share that
// block of prompt.
func TestTraceDrivesTheOpenLoop(t *testing.T) {
	s := &sent{h: fixtures.NewServer()}
	serveInBubble(t, s, func(t *testing.T, srv *memnet.Server) {
		tr, err := probe.LoadTrace(context.Background(), "testdata/trace.jsonl")
		if err != nil {
			t.Fatal(err)
		}
		p := fixturePlan(t, srv, "fast")
		p.Prompts = nil
		if err := (probe.Load{Trace: &tr, MaxInflight: 256, Seed: 1, SeedGiven: true}).Apply(&p); err != nil {
			t.Fatal(err)
		}
		start := time.Now()
		recs, _ := collect(context.Background(), p)
		if len(recs) != 5 || len(s.reqs) != 5 {
			t.Fatalf("%d records, %d requests; want 5", len(recs), len(s.reqs))
		}
		// Lines 2 and 3 are due at once: the server may see either first.
		want := []string{"0s 600 12", "1.7305s 40 8", "1s 2 1", "250ms 20 5", "250ms 700 30"} // sorted as strings
		var got []string
		byWords := map[int]string{}
		for _, q := range s.reqs {
			n := len(strings.Fields(q.prompt))
			got = append(got, fmt.Sprintf("%v %d %d", q.at.Sub(start), n, q.maxTokens))
			byWords[n] = q.prompt
		}
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("requests (at, words, max_tokens) %q, want %q", got, want)
		}
		if byWords[2] != "Say hi." {
			t.Errorf("text_input sent as %q", byWords[2])
		}
		first, third := strings.Fields(byWords[600]), strings.Fields(byWords[700])
		if len(first) != 600 || len(third) != 700 {
			t.Fatal("no prompts of 600 and 700 words")
		}
		if strings.Join(first[:512], " ") != strings.Join(third[:512], " ") || strings.Join(first[512:], " ") == strings.Join(third[512:600], " ") {
			t.Error("hash id 7 should give both prompts the same first 512 words, and 8 and 9 different ones")
		}
		if p.Workload == nil {
			p.Stamp("test")
		}
		if got := p.Describe(); !strings.Contains(got, "a trace's timestamps (5 arrivals over 1.73 s") {
			t.Errorf("describe: %s", got)
		}
	})
}

// A ShareGPT file gives its conversations' first turns as prompts and the
// second turns' lengths as max_tokens, filtered as vLLM filters them.
func TestLoadShareGPT(t *testing.T) {
	t.Parallel()
	sg, err := probe.LoadShareGPT(context.Background(), "testdata/sharegpt.json")
	if err != nil {
		t.Fatal(err)
	}
	var ids []string
	for _, p := range sg.Prompts {
		ids = append(ids, p.ID)
	}
	if got := strings.Join(ids, " "); got != "conv-a conv-b sharegpt-5" || sg.Conversations != 5 {
		t.Fatalf("prompts %q of %d conversations; want conv-a conv-b sharegpt-5 of 5", got, sg.Conversations)
	}
	if p := sg.Prompts[0]; p.Text != "What is the boiling point of water at sea level, in Celsius?" || p.MaxTokens != 21 {
		t.Errorf("first prompt %q max_tokens %d; want the human turn and 21 (84 bytes / 4)", p.Text, p.MaxTokens)
	}
	if a, b := sg.Sample(2, 9), sg.Sample(2, 9); len(a) != 2 || a[0].ID != b[0].ID || a[1].ID != b[1].ID {
		t.Errorf("Sample(2, 9) gave %v then %v", a, b)
	}
}

// Lines a trace cannot be sent from are refused, naming the line.
func TestLoadTraceRefuses(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ body, want string }{
		{`{"input_length": 5, "output_length": 1}`, "line 1: no \"timestamp\""},
		{"{\"timestamp\": 5, \"input_length\": 5}\n{\"timestamp\": 4, \"input_length\": 5}", "line 2: timestamp goes back"},
		{`{"timestamp": 0, "output_length": 3}`, "line 1: no \"input_length\""},
		{"\n\n", "no requests"},
	} {
		path := t.TempDir() + "/t.jsonl"
		if err := os.WriteFile(path, []byte(c.body), 0o600); err != nil {
			t.Fatal(err)
		}
		_, err := probe.LoadTrace(context.Background(), path)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%q: %v, want %q", c.body, err, c.want)
		}
	}
}
