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
