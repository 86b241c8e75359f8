package pipeline

import (
	"slices"
	"testing"
)

// TestTargetNamesTellTargetsApart: targets on one host that differ by
// path (one fixture server, three formats) are named by their URLs; they
// were all "127.0.0.1:8089". The model names targets of one URL.
func TestTargetNamesTellTargetsApart(t *testing.T) {
	for _, tc := range []struct {
		urls, models, want []string
	}{
		{[]string{"http://h:1/v1/messages", "http://h:1/api/chat"}, []string{"m", "m"}, []string{"http://h:1/v1/messages", "http://h:1/api/chat"}},
		{[]string{"http://h:1/v1", "http://h:1/v1"}, []string{"a", "b"}, []string{"a", "b"}},
		{[]string{"http://a:1/v1", "http://b:1/v1"}, []string{"m", "m"}, []string{"a:1", "b:1"}},
		{[]string{"http://a:1/x", "http://a:1/y", "http://b:1/x"}, []string{"m", "m", "m"}, []string{"http://a:1/x", "http://a:1/y", "http://b:1/x"}},
	} {
		if got := TargetNames(tc.urls, tc.models); !slices.Equal(got, tc.want) {
			t.Errorf("TargetNames(%q, %q) = %q, want %q", tc.urls, tc.models, got, tc.want)
		}
	}
}

// PairTargets gives one -m to every URL, pairs one per URL in order, makes
// a target per model of one URL, and refuses any other count.
func TestPairTargets(t *testing.T) {
	for _, tc := range []struct {
		urls, models, wantURLs, wantModels []string
	}{
		{[]string{"http://a", "http://b"}, nil, []string{"http://a", "http://b"}, []string{"", ""}},
		{[]string{"http://a", "http://b"}, []string{"m"}, []string{"http://a", "http://b"}, []string{"m", "m"}},
		{[]string{"http://a"}, []string{"x", "y"}, []string{"http://a", "http://a"}, []string{"x", "y"}},
	} {
		urls, models, names, err := PairTargets(tc.urls, tc.models)
		if err != nil || !slices.Equal(urls, tc.wantURLs) || !slices.Equal(models, tc.wantModels) || len(names) != len(urls) {
			t.Errorf("%q %q: %q %q %q %v", tc.urls, tc.models, urls, models, names, err)
		}
	}
	if _, _, _, err := PairTargets([]string{"http://a", "http://b", "http://c"}, []string{"x", "y"}); err == nil || err.Error() != "-m given 2 times for 3 URLs: give it once (every URL), once per URL, or several times with one URL" {
		t.Errorf("2 models for 3 URLs: %v", err)
	}
}
