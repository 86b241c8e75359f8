package ellipsis

import "testing"

// Cut keeps to the byte limit on a rune boundary: "é" is 2 bytes, so a
// limit inside it cuts before it.
func TestCut(t *testing.T) {
	for _, tc := range []struct {
		s    string
		n    int
		want string
	}{
		{"abc", 3, "abc"},
		{"abcd", 3, "abc…"},
		{"abé", 3, "ab…"},
		{"abé", 4, "abé"},
		{"é", 0, "…"},
	} {
		if got := Cut(tc.s, tc.n); got != tc.want {
			t.Errorf("Cut(%q, %d) = %q, want %q", tc.s, tc.n, got, tc.want)
		}
	}
}
