package probe_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/probe"
)

func TestParseLength(t *testing.T) {
	for _, s := range []string{"512", " 512±64 ", "512+-64", "512+/-64"} {
		if _, err := probe.ParseLength(s); err != nil {
			t.Errorf("ParseLength(%q): %v", s, err)
		}
	}
	for s, want := range map[string]string{"lots": "want N or N±SD", "0": "at least 1", "-3": "want N", "5±": "want N"} {
		if _, err := probe.ParseLength(s); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("ParseLength(%q) = %v, want an error saying %q", s, err, want)
		}
	}
}

// A fixed length makes at most 8 prompts of exactly that many words, one
// with a spread one per stream up to 64; the seed alone decides them.
func TestSyntheticPrompts(t *testing.T) {
	fixed, _ := probe.ParseLength("12")
	ps := probe.SyntheticPrompts(fixed, 100, 7)
	if len(ps) != 8 || ps[0].ID != "synthetic-1" || ps[7].ID != "synthetic-8" {
		t.Fatalf("%d prompts %q…, want 8 from synthetic-1", len(ps), ps[0].ID)
	}
	for _, p := range ps {
		if n := len(strings.Fields(p.Text)); n != 12 {
			t.Errorf("%s: %d words, want 12", p.ID, n)
		}
	}
	spread, _ := probe.ParseLength("40±10")
	if n := len(probe.SyntheticPrompts(spread, 0, 7)); n != 64 {
		t.Errorf("a duration's set: %d prompts, want 64", n)
	}
	if n := len(probe.SyntheticPrompts(spread, 5, 7)); n != 5 {
		t.Errorf("5 streams: %d prompts, want 5", n)
	}
	if !slices.Equal(probe.SyntheticPrompts(spread, 5, 7), probe.SyntheticPrompts(spread, 5, 7)) {
		t.Error("one seed made two sets")
	}
	if slices.Equal(probe.SyntheticPrompts(spread, 5, 7), probe.SyntheticPrompts(spread, 5, 8)) {
		t.Error("two seeds made one set")
	}
}

func TestSampleMaxTokens(t *testing.T) {
	l, _ := probe.ParseLength("16")
	ps := make([]probe.Prompt, 3)
	probe.SampleMaxTokens(ps, l, 1)
	for i, p := range ps {
		if p.MaxTokens != 16 {
			t.Errorf("prompt %d: max_tokens %d, want 16", i, p.MaxTokens)
		}
	}
	spread, _ := probe.ParseLength("1±100")
	probe.SampleMaxTokens(ps, spread, 1)
	for i, p := range ps {
		if p.MaxTokens < 1 {
			t.Errorf("prompt %d: max_tokens %d, want at least 1", i, p.MaxTokens)
		}
	}
}

// TestApplyLengths: the lengths make the prompts and their max_tokens;
// each refusal names the flags, as drip run says them.
func TestApplyLengths(t *testing.T) {
	p := probe.Plan{Runs: 4, Seed: 7}
	if err := p.ApplyLengths("40", "16", false, false); err != nil || len(p.Prompts) != 4 || p.Prompts[0].MaxTokens < 1 {
		t.Fatalf("prompts %+v, %v: want 4 synthetic prompts with max_tokens", p.Prompts, err)
	}
	for _, tc := range []struct {
		in, out         string
		explicit, maxTk bool
		body            []byte
		want            string
	}{
		{in: "lots", want: `--input-tokens "lots": want N or N±SD (N+-SD), e.g. 512 or 512±64`},
		{out: "0", want: `--output-tokens "0": the length must be at least 1 token`},
		{in: "10", explicit: true, want: "--input-tokens makes the prompts: it cannot be combined with -p, --prompt-file, --prompts, -d or --body"},
		{in: "10", body: []byte("{}"), want: "--input-tokens makes the prompts: it cannot be combined with -p, --prompt-file, --prompts, -d or --body"},
		{out: "10", maxTk: true, want: "--output-tokens sets max_tokens per prompt: drop --max-tokens, -d and --body"},
	} {
		p := probe.Plan{Runs: 1, Target: probe.Target{Body: tc.body}}
		if err := p.ApplyLengths(tc.in, tc.out, tc.explicit, tc.maxTk); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc, err, tc.want)
		}
	}
}
