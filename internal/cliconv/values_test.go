package cliconv

import (
	"strings"
	"testing"
)

// A size is a whole number of bytes with an optional binary unit, from 1
// byte to 1TiB.
func TestParseSize(t *testing.T) {
	t.Parallel()
	for s, want := range map[string]int64{"1": 1, "512KiB": 512 << 10, "64MiB": 64 << 20, "64 M": 64 << 20, "1GiB": 1 << 30, "1024G": MaxSize, "3B": 3, "2k": 2048} {
		if got, err := ParseSize("--max-bytes", s); err != nil || got != want {
			t.Errorf("%q: %d, %v; want %d", s, got, err, want)
		}
	}
	for _, s := range []string{"", "0", "-1", "1025G", "12TB", "1.5MiB", "MiB", "99999999999999999999"} {
		if _, err := ParseSize("--max-bytes", s); err == nil || !strings.HasPrefix(err.Error(), "--max-bytes \"") {
			t.Errorf("%q: %v, want an error naming --max-bytes", s, err)
		}
	}
}

// An empty port is any free one, as to net.Listen; a named port is
// net.Listen's to look up; one out of range, or no host:port, is refused.
func TestCheckAddr(t *testing.T) {
	t.Parallel()
	for _, addr := range []string{"127.0.0.1:4143", "127.0.0.1:", ":0", "localhost:http", "[::1]:65535"} {
		if err := CheckAddr("--addr", addr); err != nil {
			t.Errorf("%q: %v, want it taken", addr, err)
		}
	}
	for _, addr := range []string{"nonsense", "127.0.0.1:65536", "127.0.0.1:-1", "\x1b[2J:1:2"} {
		err := CheckAddr("--addr", addr)
		if err == nil || !strings.Contains(err.Error(), "want host:port") || strings.Contains(err.Error(), "\x1b") {
			t.Errorf("%q: %v, want a refusal naming --addr, sanitised", addr, err)
		}
	}
}
