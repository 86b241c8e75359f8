package redact

import (
	"fmt"
	"strings"
	"testing"
)

const key = "sk-Zq7vXw9KpL3mNc8R" // 19 bytes

// streamed hands pieces to a new stream of m's, in order, and joins what
// came back.
func streamed(m *Masker, pieces ...string) string {
	s := m.Stream()
	var b strings.Builder
	for _, p := range pieces {
		b.WriteString(s.Next(p))
	}
	return b.String()
}

// cut splits text at the given offsets, in increasing order.
func cut(text string, at ...int) []string {
	var out []string
	prev := 0
	for _, a := range at {
		out = append(out, text[prev:a])
		prev = a
	}
	return append(out, text[prev:])
}

// shownOfKey is what splits at offsets js into the key let show of it:
// the bytes before the last split within its first MinPrefix-1 bytes.
func shownOfKey(js ...int) string {
	n := 0
	for _, j := range js {
		if j < MinPrefix {
			n = max(n, j)
		}
	}
	return key[:n]
}

func TestTextStreamMasksAKeySplitAcrossTwoPiecesAtEveryPosition(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{key})
	text := "your key is " + key + ", keep it"
	start := strings.Index(text, key)
	for at := 0; at <= len(text); at++ {
		shown := shownOfKey(at - start)
		want := "your key is " + shown + strings.Repeat("*", len(key)-len(shown)) + ", keep it"
		if got := streamed(m, cut(text, at)...); got != want {
			t.Errorf("split at %d: %q, want %q", at, got, want)
		}
	}
}

// Every pair of splits: a middle piece wholly inside the key is masked
// whole, and what shows is what the splits within its first bytes let show.
func TestTextStreamMasksAKeySplitAcrossThreePieces(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{key})
	text := "key=" + key + "!"
	start := 4
	for a := 0; a <= len(text); a++ {
		for b := a; b <= len(text); b++ {
			shown := shownOfKey(a-start, b-start)
			want := "key=" + shown + strings.Repeat("*", len(key)-len(shown)) + "!"
			if got := streamed(m, cut(text, a, b)...); got != want {
				t.Errorf("splits at %d, %d: %q, want %q", a, b, got, want)
			}
		}
	}
}

// Token by token: the first MinPrefix-1 bytes of each occurrence show,
// every other byte of it is masked, for a key said twice in a row.
func TestTextStreamMasksARepeatedKeyByteByByte(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{key})
	text := key + key
	got := streamed(m, strings.Split(text, "")...)
	stars := strings.Repeat("*", len(key)-(MinPrefix-1))
	if want := key[:MinPrefix-1] + stars + key[:MinPrefix-1] + stars; got != want {
		t.Errorf("%q, want %q", got, want)
	}
}

// Overlapping secrets, split at every position: everything of both is
// masked but the bytes before a split within MinPrefix-1 bytes of a
// secret's start that the other secret does not cover.
func TestTextStreamMasksOverlappingSecretsSplitAnywhere(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{"abcdefgh12", "12345678xy"}) // at 1 and at 9
	text := "<abcdefgh12345678xy>"
	for at := 0; at <= len(text); at++ {
		want := []byte("<" + strings.Repeat("*", 18) + ">")
		if at > 1 && at < 1+MinPrefix {
			copy(want[1:at], text[1:at])
		}
		if at > 11 && at < 9+MinPrefix { // before 11 the first one covers it
			copy(want[11:at], text[11:at])
		}
		if got := streamed(m, cut(text, at)...); got != string(want) {
			t.Errorf("split at %d: %q, want %q", at, got, want)
		}
	}
}

// A piece that ends with a key's first MinPrefix bytes or more has them
// masked, whether the key follows or not; fewer are left as they are.
func TestTextStreamMasksATrailingPrefixOfMinPrefixBytes(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{key})
	for _, c := range []struct {
		pieces []string
		want   string
	}{
		{[]string{"keys start with sk-"}, "keys start with sk-"},
		{[]string{"keys start with sk-", " and go on"}, "keys start with sk- and go on"},
		{[]string{"see sk-Z", "ebra"}, "see ****ebra"},                                      // masked before "ebra" came
		{[]string{"see sk-Zebra"}, "see sk-Zebra"},                                          // not a prefix at the end
		{[]string{"see sk-Zq7vXw9K"}, "see ***********"},                                    // the end of the stream
		{[]string{"a", "sk-Z", "", "q7vXw9KpL3mNc8R"}, "a" + strings.Repeat("*", len(key))}, // an empty piece between
	} {
		if got := streamed(m, c.pieces...); got != c.want {
			t.Errorf("%q: %q, want %q", c.pieces, got, c.want)
		}
	}
}

// A header's value, "Bearer " and the key, is no prefix to mask: text that
// ends with "Bear" keeps it, and the key split after "Bearer sk-" shows
// that much, as the key alone does.
func TestTextStreamMasksNoSchemeWordByItsPrefix(t *testing.T) {
	t.Parallel()
	m := NewMasker(CredentialValues("Bearer " + key))
	for _, c := range []struct {
		pieces []string
		want   string
	}{
		{[]string{"Polar Bear", "s and Bearer", " tokens"}, "Polar Bears and Bearer tokens"},
		{[]string{"Bearer sk-", key[3:]}, "Bearer sk-" + strings.Repeat("*", len(key)-3)},
		{[]string{"Bearer sk-Z", key[4:]}, "Bearer " + strings.Repeat("*", len(key))},
		{[]string{"Bearer " + key}, strings.Repeat("*", len("Bearer "+key))},
	} {
		if got := streamed(m, c.pieces...); got != c.want {
			t.Errorf("%q: %q, want %q", c.pieces, got, c.want)
		}
	}
}

// The URL-escaped form of a secret is masked split as the raw one is.
func TestTextStreamMasksTheURLEscapedFormSplit(t *testing.T) {
	t.Parallel()
	m := NewMasker([]string{"key/with=escapes!"})
	esc := "key%2Fwith%3Descapes%21"
	for at := 1; at < len(esc); at++ {
		shown := ""
		if at < MinPrefix {
			shown = esc[:at]
		}
		if got, want := streamed(m, "q="+esc[:at], esc[at:]+"&"), "q="+shown+strings.Repeat("*", len(esc)-len(shown))+"&"; got != want {
			t.Errorf("split at %d: %q, want %q", at, got, want)
		}
	}
}

// No credential: the stream is nil and hands text on as it is; with one,
// text that holds none of it costs no allocation either.
func TestTextStreamAllocatesNothingForTextWithoutASecret(t *testing.T) {
	var none *Masker
	s := none.Stream()
	if s != nil || s.Next("sk-Zq7v") != "sk-Zq7v" {
		t.Fatalf("a nil Masker's stream is %v", s)
	}
	clean := NewMasker([]string{key}).Stream()
	for name, s := range map[string]*TextStream{"nil": s, "with a credential": clean} {
		if n := testing.AllocsPerRun(100, func() { s.Next(" a token of answer text") }); n != 0 {
			t.Errorf("%s: %v allocations per piece, want 0", name, n)
		}
	}
}

// fuzzSecrets are the fuzz test's credentials: one that overlaps itself,
// two that overlap each other, one that URL-escapes, and a header's value
// that holds it.
var fuzzSecrets = []string{"aaaaaaaaa", "abcdefgh12", "12345678xy", "sk-Zq/7v=Xw9", "Bearer sk-Zq/7v=Xw9"}

// The streaming masker, fed text split anywhere, agrees with masking the
// whole text (Masker.String) byte for byte, but for two sets of bytes:
//   - a byte the whole-text mask stars and the stream does not: for every
//     occurrence of a secret over it, starting at o, the piece holding the
//     byte ends before o+MinPrefix (a split within the secret's first
//     MinPrefix-1 bytes, and the byte before the split), or, for a secret
//     that holds another, before o+len (the occurrence did not end there);
//   - a byte the stream stars and the whole-text mask does not lies in a
//     prefix of a secret that holds no other, MinPrefix bytes long or
//     more, that the byte's piece ends with (the eager prefix rule).
//
// The stream writes nothing but '*', and keeps lengths.
func FuzzTextStreamAgreesWithTheWholeText(f *testing.F) {
	f.Add("say \x01 and \x02, then \x03\x03", []byte{3, 7, 1, 1, 9})
	f.Add("aaaa\x00aaa", []byte{2, 2, 2})
	f.Add("sk-Zq%2F7v%3DXw9 <abcdefgh12345678xy>", []byte{5, 12, 1})
	f.Add("Polar Bears, \x04 and Bearer+sk-Zq%2F7v%3DXw9", []byte{7, 3, 4, 4, 2, 6})
	m := NewMasker(fuzzSecrets)
	f.Fuzz(func(t *testing.T, raw string, cuts []byte) {
		text := raw
		for i, s := range fuzzSecrets { // \x00..\x04 stand for a secret
			text = strings.ReplaceAll(text, string(rune(i)), s)
		}
		var pieces []string
		var ends []int // ends[i]: where the piece holding byte i ends
		rest := text
		for _, c := range cuts {
			n := min(int(c)%8, len(rest))
			pieces, rest = append(pieces, rest[:n]), rest[n:]
			ends = append(ends, repeat(len(text)-len(rest), n)...)
		}
		pieces = append(pieces, rest)
		ends = append(ends, repeat(len(text), len(rest))...)
		got, whole := streamed(m, pieces...), m.String(text)
		if len(got) != len(text) {
			t.Fatalf("%q: length %d, want %d", pieces, len(got), len(text))
		}
		for i := range text {
			switch {
			case got[i] != '*' && got[i] != text[i]:
				t.Fatalf("%q: byte %d is %q, want %q or '*'", pieces, i, got[i], text[i])
			case got[i] != '*' && whole[i] == '*' && !splitBeforeMinPrefix(m, text, i, ends[i]):
				t.Fatalf("%q: byte %d shows in %q, masked in %q, and no split within a secret's first bytes lets it", pieces, i, got, whole)
			case got[i] == '*' && whole[i] != '*' && !inTrailingPrefix(m, text, i, ends[i]):
				t.Fatalf("%q: byte %d masked in %q, not in %q, and no prefix at its piece's end is", pieces, i, got, whole)
			}
		}
	})
}

func repeat(v, n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = v
	}
	return out
}

// splitBeforeMinPrefix reports whether every occurrence of a secret in
// text over byte i starts at an o with end < o+MinPrefix (i's piece ends
// within the occurrence's first MinPrefix-1 bytes), or end < o+len for a
// secret that holds another.
func splitBeforeMinPrefix(m *Masker, text string, i, end int) bool {
	for _, v := range m.values {
		shows := MinPrefix
		if holdsAnother(m, v) {
			shows = len(v)
		}
		for o := max(0, i-len(v)+1); o <= i; o++ {
			if strings.HasPrefix(text[o:], v) && end >= o+shows {
				return false
			}
		}
	}
	return true
}

func holdsAnother(m *Masker, v string) bool {
	for _, w := range m.values {
		if w != v && strings.Contains(v, w) {
			return true
		}
	}
	return false
}

// inTrailingPrefix reports a prefix of a secret, of MinPrefix bytes or
// more but not the whole, that text[:end] ends with and that covers i.
func inTrailingPrefix(m *Masker, text string, i, end int) bool {
	for _, v := range m.values {
		if holdsAnother(m, v) {
			continue
		}
		for k := MinPrefix; k < len(v) && k <= end; k++ {
			if end-k <= i && strings.HasSuffix(text[:end], v[:k]) {
				return true
			}
		}
	}
	return false
}

func ExampleTextStream() {
	s := NewMasker([]string{key}).Stream()
	for _, piece := range []string{"your key: sk-", "Zq7vX", "w9KpL3", "mNc8R."} {
		fmt.Printf("%q\n", s.Next(piece))
	}
	// Output:
	// "your key: sk-"
	// "*****"
	// "******"
	// "*****."
}

// The cost a frame's text pays on the read path when the request carries
// a Bearer key (every value redact finds in it, as the probe builds them):
// the stream, and masking each piece on its own as before it.
func BenchmarkTextStreamNext(b *testing.B) {
	m := NewMasker(CredentialValues("Bearer sk-proj-" + strings.Repeat("Zq7vXw9KpL3mNc8R", 3)))
	pieces := strings.Fields("The quick brown fox jumps over the lazy dog and keeps on running")
	b.Run("stream", func(b *testing.B) {
		s := m.Stream()
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			s.Next(" " + pieces[i%len(pieces)])
		}
	})
	b.Run("each piece alone", func(b *testing.B) {
		b.ReportAllocs()
		for i := 0; b.Loop(); i++ {
			m.String(" " + pieces[i%len(pieces)])
		}
	})
}
