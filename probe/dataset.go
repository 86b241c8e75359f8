package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/driplab/drip/internal/userfile"
)

// The dataset kinds, by the names vLLM and AIPerf give them.
const (
	DatasetShareGPT  = "sharegpt"
	DatasetMooncake  = "mooncake_trace"
	shareGPTMaxBytes = 1 << 30 // ShareGPT_V3's cleaned split is about 670 MB
	traceMaxBytes    = 256 << 20
)

var (
	shareGPTFile = userfile.Kind{What: "a ShareGPT file", Limit: shareGPTMaxBytes}
	traceFile    = userfile.Kind{What: "a mooncake trace", Limit: traceMaxBytes}
)

// ShareGPT is the prompts of a ShareGPT file and what its filter left out.
type ShareGPT struct {
	Prompts       []Prompt
	Conversations int    // in the file
	Name          string // the file's base name
}

// approxTokens is a text's length in tokens by the usual rule of thumb,
// four bytes a token, because drip has no tokenizer.
func approxTokens(s string) int { return max(1, (len(s)+3)/4) }

// LoadShareGPT reads a ShareGPT file as vLLM's sharegpt dataset does. The
// file is a JSON array of conversations, each with an id and a list of
// turns (`{"id","conversations":[{"from","value"},…]}`). Each
// conversation's first turn is a prompt and the second's length its
// max_tokens. Like vLLM it leaves out conversations of fewer than two
// turns, a prompt or answer under 4 tokens, a prompt over 1,024 or both
// over 2,048 (the lengths approximated, 4 bytes a token).
func LoadShareGPT(ctx context.Context, path string) (ShareGPT, error) {
	b, err := userfile.Read(ctx, path, shareGPTFile, nil)
	if err != nil {
		return ShareGPT{}, err
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('[') {
		return ShareGPT{}, fmt.Errorf("%s: not a JSON array of conversations (want [{\"conversations\":[{\"from\":…,\"value\":…},…]},…]): %w", path, ErrPromptFile)
	}
	sg := ShareGPT{Name: filepath.Base(path)}
	seen := map[string]bool{}
	for dec.More() {
		var c struct {
			ID    any `json:"id"`
			Turns []struct {
				Value string `json:"value"`
			} `json:"conversations"`
		}
		if err := dec.Decode(&c); err != nil {
			return ShareGPT{}, fmt.Errorf("%s: conversation %d: %v: %w", path, sg.Conversations+1, err, ErrPromptFile)
		}
		sg.Conversations++
		if len(c.Turns) < 2 {
			continue
		}
		in, out := approxTokens(c.Turns[0].Value), approxTokens(c.Turns[1].Value)
		if in < 4 || out < 4 || in > 1024 || in+out > 2048 {
			continue
		}
		id, _ := c.ID.(string)
		if id == "" || seen[id] {
			id = fmt.Sprintf("sharegpt-%d", sg.Conversations)
		}
		seen[id] = true
		sg.Prompts = append(sg.Prompts, Prompt{ID: id, Text: c.Turns[0].Value, MaxTokens: out})
	}
	if len(sg.Prompts) == 0 {
		return sg, fmt.Errorf("%s: none of %d conversations has a prompt and an answer within vLLM's lengths: %w", path, sg.Conversations, ErrPromptFile)
	}
	return sg, nil
}

// Sample picks n of the prompts (all when n is 0 or more than there
// are), seeded, in the file's order. vLLM samples num_prompts of them the
// same way.
func (sg ShareGPT) Sample(n int, seed int64) []Prompt {
	if n <= 0 || n >= len(sg.Prompts) {
		return sg.Prompts
	}
	pick := seeded(seed, datasetStream).Perm(len(sg.Prompts))[:n]
	slices.Sort(pick)
	out := make([]Prompt, n)
	for i, k := range pick {
		out[i] = sg.Prompts[k]
	}
	return out
}

// Trace is a mooncake trace as AIPerf reads one. It holds a request a
// line, each sent at its timestamp with its own prompt and max_tokens.
type Trace struct {
	At      []time.Duration // each line's timestamp, from the loop's start
	Prompts []Prompt
	Name    string // the file's base name
}

// traceBlock is AIPerf's hash block. A hash id stands for this many
// tokens of prompt, the same text wherever the id recurs, so prompts
// that share ids share a prefix a server may cache.
const traceBlock = 512

// LoadTrace reads a mooncake trace, the format drip export aiperf writes.
// Each line is one object with timestamp, input_length and output_length,
// and optional hash_ids and text_input. timestamp is ms from the trace's
// start and must not go back. input_length words make the prompt, unless
// text_input gives it. output_length is its max_tokens.
func LoadTrace(ctx context.Context, path string) (Trace, error) {
	b, err := userfile.Read(ctx, path, traceFile, nil)
	if err != nil {
		return Trace{}, err
	}
	tr := Trace{Name: filepath.Base(path)}
	blocks := map[int64]string{}
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	for line := 1; sc.Scan(); line++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		l, err := parseTraceLine(sc.Bytes())
		if err == nil && len(tr.At) > 0 && l.at < tr.At[len(tr.At)-1] {
			err = errors.New("timestamp goes back")
		}
		if err != nil {
			return Trace{}, fmt.Errorf("%s: line %d: %v: %w", path, line, err, ErrPromptFile)
		}
		text := l.Text
		if text == "" {
			text = traceText(blocks, l.HashIDs, l.InputLength, line)
		}
		tr.At = append(tr.At, l.at)
		tr.Prompts = append(tr.Prompts, Prompt{ID: fmt.Sprintf("line-%d", line), Text: text, MaxTokens: l.OutputLength})
	}
	if err := sc.Err(); err != nil {
		return Trace{}, fmt.Errorf("%s: %v: %w", path, err, ErrPromptFile)
	}
	if len(tr.At) == 0 {
		return Trace{}, fmt.Errorf("%s: no requests: %w", path, ErrPromptFile)
	}
	return tr, nil
}

type traceLine struct {
	Timestamp    *float64 `json:"timestamp"`
	InputLength  int      `json:"input_length"`
	OutputLength int      `json:"output_length"`
	HashIDs      []int64  `json:"hash_ids"`
	Text         string   `json:"text_input"`
	at           time.Duration
}

// parseTraceLine reads one line, saying what is wrong with it.
func parseTraceLine(b []byte) (traceLine, error) {
	var l traceLine
	if err := json.Unmarshal(b, &l); err != nil {
		return l, err
	}
	switch {
	case l.Timestamp == nil:
		return l, errors.New("no \"timestamp\" (drip sends a trace on its timestamps)")
	case *l.Timestamp < 0 || *l.Timestamp > float64(365*24*time.Hour/time.Millisecond):
		return l, fmt.Errorf("timestamp %v ms out of range", *l.Timestamp)
	case l.Text == "" && l.InputLength < 1:
		return l, errors.New("no \"input_length\" (or \"text_input\")")
	case l.OutputLength < 0:
		return l, errors.New("negative \"output_length\"")
	}
	l.at = time.Duration(*l.Timestamp * float64(time.Millisecond))
	return l, nil
}

// traceText makes line's prompt of n words. Each hash id gives a block of
// traceBlock words, the same for the same id, and the last block is cut to
// fit. Past the hash ids the line gets blocks of its own.
func traceText(blocks map[int64]string, ids []int64, n, line int) string {
	var sb strings.Builder
	for k, words := 0, 0; words < n; k++ {
		var block string
		if k < len(ids) {
			var ok bool
			if block, ok = blocks[ids[k]]; !ok {
				block = synthText(rand.New(rand.NewPCG(uint64(ids[k]), 0xb10c)), traceBlock)
				blocks[ids[k]] = block
			}
		} else {
			block = synthText(rand.New(rand.NewPCG(uint64(line), uint64(k))), traceBlock)
		}
		take := min(traceBlock, n-words)
		if sb.Len() > 0 {
			sb.WriteByte(' ')
		}
		sb.WriteString(firstWords(block, take))
		words += take
	}
	return sb.String()
}

// firstWords is s's first n space-separated words.
func firstWords(s string, n int) string {
	end := 0
	for range n {
		i := strings.IndexByte(s[end:], ' ')
		if i < 0 {
			return s
		}
		end += i + 1
	}
	return strings.TrimSuffix(s[:end], " ")
}

// Apply makes the trace the plan's workload. Its prompts go in order, each
// sent at its time, at most runs of them (0 means all).
func (tr Trace) Apply(p *Plan, runs int) {
	n := len(tr.At)
	if runs > 0 {
		n = min(n, runs)
	}
	p.Prompts, p.Schedule, p.Runs = tr.Prompts[:n], tr.At[:n], n
	p.Rate = 1 // a nominal rate, its mean, since the schedule is the trace's
	if span := (tr.At[n-1] - tr.At[0]).Seconds(); n > 1 {
		p.Rate = min(MaxRate, max(MinRate, float64(n-1)/max(span, 0.001)))
	}
	p.Arrival = ArrivalTrace
	p.Lengths.Dataset = DatasetMooncake + " " + tr.Name
}
