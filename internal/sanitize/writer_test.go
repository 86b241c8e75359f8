package sanitize

import (
	"bytes"
	"encoding/json"
	"strings"
	"testing"
	"unicode"
)

func TestWriter(t *testing.T) {
	t.Parallel()
	for _, c := range []struct{ name, in, want string }{
		{"plain", "drip · ok\n\tn 3", "drip · ok\n\tn 3"},
		{"OSC title inert", "x\x1b]0;pwned\x07y", "x^[]0;pwned^Gy"},
		{"OSC 52 inert", "\x1b]52;c;cHduZWQ=\x07", "^[]52;c;cHduZWQ=^G"},
		{"SGR inert", "\x1b[31mred", "^[[31mred"},
		{"CR and DEL", "a\rb\x7f", `a^Mb\u007f`},
		{"C1 CSI rune", "\u009b31m", `\u009b31m`},
		{"bidi override", "\u202eevil\u202c", `\u202eevil\u202c`},
		{"past the BMP", "tag\U000E0041", `tag\udb40\udc41`},
		{"invalid UTF-8", "bad\xff\x9b", "bad\uFFFD\uFFFD"},
		{"emoji ZWJ kept", "👩\u200d💻", "👩\u200d💻"},
	} {
		var b bytes.Buffer
		NewWriter(&b).Write([]byte(c.in))
		if b.String() != c.want {
			t.Errorf("%s: %q became %q, want %q", c.name, c.in, b.String(), c.want)
		}
	}
}

// A rune cut between two writes is written whole with the second.
func TestWriterHoldsACutRune(t *testing.T) {
	t.Parallel()
	var b bytes.Buffer
	w := NewWriter(&b)
	s := []byte("a—\u202eb")
	for i := range s {
		if n, err := w.Write(s[i : i+1]); n != 1 || err != nil {
			t.Fatalf("write %d: %d, %v", i, n, err)
		}
	}
	if got, want := b.String(), `a—\u202eb`; got != want {
		t.Errorf("byte by byte: %q, want %q", got, want)
	}
}

// JSON through the Writer decodes to the same value: the escapes it adds
// are JSON's own.
func TestWriterKeepsJSONExact(t *testing.T) {
	t.Parallel()
	in := map[string]string{"model": "m\u202e\u009b\x7f\U000E0041x", "text": "a\x1b]0;t\x07b\nc"}
	raw, _ := json.Marshal(in)
	var b bytes.Buffer
	NewWriter(&b).Write(raw)
	var out map[string]string
	if err := json.Unmarshal(b.Bytes(), &out); err != nil {
		t.Fatalf("%s: %v", b.String(), err)
	}
	if out["model"] != in["model"] || out["text"] != in["text"] {
		t.Errorf("decoded %q, want %q", out, in)
	}
	if strings.ContainsAny(b.String(), "\u202e\u009b\x7f\x1b") {
		t.Errorf("control runes left in %q", b.String())
	}
}

// FuzzWriter: whatever is written, in whatever pieces, nothing that drives
// a terminal comes out.
func FuzzWriter(f *testing.F) {
	for _, s := range []string{"plain", "\x1b]0;t\x07", "\u202e", "\x9b", "a\rb", "—\xe2\x80"} {
		f.Add(s, 1)
	}
	f.Fuzz(func(t *testing.T, s string, cut int) {
		var b bytes.Buffer
		w := NewWriter(&b)
		if cut = max(cut, 1); cut < len(s) {
			w.Write([]byte(s[:cut]))
			s = s[cut:]
		}
		w.Write([]byte(s))
		if r, ok := firstControl(b.String()); ok {
			t.Fatalf("control rune %U in %q", r, b.String())
		}
	})
}

// firstControl finds a rune that is neither graphic nor newline, tab or ZWJ.
func firstControl(s string) (rune, bool) {
	for _, r := range s {
		if r != '\n' && r != '\t' && r != zeroWidthJoiner && !unicode.IsGraphic(r) {
			return r, true
		}
	}
	return 0, false
}
