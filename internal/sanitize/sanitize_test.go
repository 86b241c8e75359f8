package sanitize

import (
	"strings"
	"testing"
	"unicode"
)

func TestText(t *testing.T) {
	t.Parallel()
	cases := []struct{ name, in, want string }{
		{"plain", "hello, world", "hello, world"},
		{"newline and tab kept", "a\n\tb", "a\n\tb"},
		{"OSC title removed with payload", "x\x1b]0;pwned\x07y", "xy"},
		{"OSC 52 clipboard", "\x1b]52;c;cHduZWQ=\x07ok", "ok"},
		{"OSC 8 hyperlink", "\x1b]8;;http://evil\x07link\x1b]8;;\x07", "link"},
		{"CSI clear screen", "\x1b[2J\x1b[Hclear", "clear"},
		{"SGR colour", "\x1b[31mred\x1b[0m", "red"},
		{"carriage return shown", "over\rwrite", "over^Mwrite"},
		{"backspace shown", "ba\b\bck", "ba^H^Hck"},
		{"bell shown", "bell\x07", "bell^G"},
		{"NUL shown", "a\x00b", "a^@b"},
		{"DEL shown", "a\x7fb", "a<U+007F>b"},
		{"C1 CSI as a rune", "\u009b31m", "<U+009B>31m"},
		{"bidi override", "\u202eevil\u202c", "<U+202E>evil<U+202C>"},
		{"bidi isolate", "\u2066x\u2069", "<U+2066>x<U+2069>"},
		{"invalid UTF-8", "bad\xff\xfe", "bad\uFFFD"},
		{"raw 8-bit CSI byte", "a\x9b2Jb", "a\uFFFD2Jb"},
		{"unicode text kept", "naïve 日本語 — ok", "naïve 日本語 — ok"},
		{"emoji ZWJ kept", "👩\u200d💻", "👩\u200d💻"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			if got := Text(c.in); got != c.want {
				t.Errorf("Text(%q) = %q, want %q", c.in, got, c.want)
			}
		})
	}
}

func TestLineFoldsNewlines(t *testing.T) {
	t.Parallel()
	if got := Line("a\nb\tc\rd"); got != "a b c^Md" {
		t.Errorf("Line = %q", got)
	}
}

// FuzzText checks the property that matters: nothing that can drive a
// terminal survives.
func FuzzText(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;t\x07", "\x1b[2J", "\u202e", "\x9b", "a\rb\bc", "\x1bP1$r\x1b\\", "\x1b_apc\x1b\\"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		for _, out := range []string{Text(s), Line(s)} {
			for _, r := range out {
				if r == '\n' || r == '\t' || r == zeroWidthJoiner {
					continue
				}
				if r < 0x20 || r == 0x7f || (r >= 0x80 && r < 0xa0) || unicode.Is(unicode.Cf, r) {
					t.Fatalf("%q left control rune %U in %q", s, r, out)
				}
			}
			if strings.ContainsRune(Line(s), '\n') {
				t.Fatalf("Line kept a newline")
			}
		}
	})
}
