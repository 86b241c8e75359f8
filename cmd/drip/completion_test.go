package main

import (
	"strings"
	"testing"
)

// Shell completion offers drip's own values (cobra's __complete is what
// the generated bash/zsh/fish scripts call).
func TestCompletionOffersDripValues(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want []string
	}{
		{[]string{"__complete", "demo", ""}, []string{"steady", "mid-sentence-stall", ":4"}},
		{[]string{"__complete", "run", "http://x", "--format", ""}, []string{"auto", "openai-chat", "anthropic", "ndjson"}},
		{[]string{"__complete", "watch", "http://x", "--format", "o"}, []string{"openai-chat", "ollama-chat"}},
		{[]string{"__complete", "view", ""}, []string{"jsonl", ":8"}},
		{[]string{"__complete", "compare", "a.jsonl", ""}, []string{"jsonl", ":8"}},
	} {
		code, stdout, stderr := drip(t, tc.args...)
		lines := strings.Split(stdout, "\n")
		for _, w := range tc.want {
			found := false
			for _, l := range lines {
				found = found || l == w || strings.HasPrefix(l, w+"\t")
			}
			if code != 0 || !found {
				t.Errorf("%v: exit %d, no %q in\n%s%s", tc.args, code, w, stdout, stderr)
			}
		}
	}
}
