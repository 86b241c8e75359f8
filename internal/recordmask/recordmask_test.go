package recordmask_test

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/driplab/drip/internal/recordmask"
	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/record"
)

// fuzzSecrets are FuzzFrameTextMasksEveryView's credentials: a key, one
// that overlaps itself and two that overlap each other; none holds
// another, and none changes when URL-escaped.
var fuzzSecrets = []string{"sk-Zq7vXw9K", "aaaaaaaaa", "abcdefgh12", "12345678xy"}

// fuzzFrames are the frames FuzzFrameTextMasksEveryView cuts text into: a
// cut's low 3 bits are its piece's length, the next 2 its frame's kind
// and channel.
var fuzzFrames = []record.Frame{
	{Kind: record.KindContent, Channel: record.ChannelText},
	{Kind: record.KindContent, Channel: record.ChannelReasoning},
	{Kind: record.KindContent, Channel: record.ChannelTool},
	{Kind: record.KindError},
}

// Frames of several channels, their text split anywhere, are masked by
// two views, each as redact.TextStream masks one stream: each frame's
// channel's text, and every content frame's text together, in arrival
// order. Against masking each view's whole text (Masker.String): a byte
// a view's whole text has masked shows only where that view's split rule
// lets it (the piece holding it ends within the first MinPrefix-1 bytes
// of every occurrence over it), and a byte masked that no view's whole
// text masks lies in a prefix of a secret, MinPrefix bytes or more, that
// its piece ends with in a view. Only '*' is written; lengths stay.
func FuzzFrameTextMasksEveryView(f *testing.F) {
	f.Add("my key: \x00, said", []byte{0x0d, 0x15, 0x03})
	f.Add("\x01\x02\x03 \x00\x00", []byte{0x07, 0x0f, 0x17, 0x1f, 0x05, 0x2d})
	m := redact.NewMasker(fuzzSecrets)
	f.Fuzz(func(t *testing.T, raw string, cuts []byte) {
		text := raw
		for i, s := range fuzzSecrets { // \x00..\x03 stand for a secret
			text = strings.ReplaceAll(text, string(rune(i)), s)
		}
		var frames []record.Frame
		rest := text
		for _, c := range cuts {
			fr := fuzzFrames[c>>3&3]
			n := min(int(c&7), len(rest))
			fr.Text, rest = rest[:n], rest[n:]
			frames = append(frames, fr)
		}
		frames = append(frames, record.Frame{Kind: record.KindContent, Text: rest})
		ft := recordmask.NewFrameText(m)
		var got strings.Builder
		for i := range frames {
			got.WriteString(ft.Next(&frames[i]))
		}
		checkFrameViews(t, text, got.String(), frames)
	})
}

// frameView is one view of a stream's frames: the bytes of text it holds,
// in order, and for each where its piece ends in the view's text.
type frameView struct {
	text []byte
	at   []int // at[k]: the stream's byte that is the view's byte k
	ends []int
}

func checkFrameViews(t *testing.T, text, got string, frames []record.Frame) {
	t.Helper()
	if len(got) != len(text) {
		t.Fatalf("length %d, want %d", len(got), len(text))
	}
	views := map[string]*frameView{}
	add := func(name string, from, to int) {
		v := views[name]
		if v == nil {
			v = &frameView{}
			views[name] = v
		}
		for i := from; i < to; i++ {
			v.text, v.at = append(v.text, text[i]), append(v.at, i)
			v.ends = append(v.ends, len(v.text)-1-i+to)
		}
	}
	for i, off := 0, 0; i < len(frames); off, i = off+len(frames[i].Text), i+1 {
		add(fmt.Sprint(frames[i].Kind, frames[i].Channel), off, off+len(frames[i].Text))
		if frames[i].IsContent() {
			add("content", off, off+len(frames[i].Text))
		}
	}
	explained := make([]bool, len(text)) // a '*' a view accounts for
	for name, v := range views {
		whole := redact.NewMasker(fuzzSecrets).String(string(v.text))
		for k, i := range v.at {
			switch {
			case got[i] != '*' && got[i] != text[i]:
				t.Fatalf("byte %d is %q, want %q or '*'", i, got[i], text[i])
			case whole[k] == '*' && got[i] != '*' && !splitWithinMinPrefix(string(v.text), k, v.ends[k]):
				t.Fatalf("%s view %q: byte %d shows in %q, and no split within a secret's first bytes lets it", name, v.text, i, got)
			case whole[k] == '*' || inTrailingPrefix(string(v.text), k, v.ends[k]):
				explained[i] = true
			}
		}
	}
	for i := range text {
		if got[i] == '*' && text[i] != '*' && !explained[i] {
			t.Fatalf("byte %d masked in %q, and no view's whole text or piece's end masks it", i, got)
		}
	}
}

// splitWithinMinPrefix reports whether byte k's piece, ending at end,
// ends within the first MinPrefix-1 bytes of every secret over k in text.
func splitWithinMinPrefix(text string, k, end int) bool {
	for _, s := range fuzzSecrets {
		for o := max(0, k-len(s)+1); o <= k; o++ {
			if strings.HasPrefix(text[o:], s) && end >= o+redact.MinPrefix {
				return false
			}
		}
	}
	return true
}

// inTrailingPrefix reports a proper prefix of a secret, MinPrefix bytes
// or more, that text[:end] ends with and that covers byte k.
func inTrailingPrefix(text string, k, end int) bool {
	for _, s := range fuzzSecrets {
		for n := redact.MinPrefix; n < len(s) && n <= end; n++ {
			if end-n <= k && strings.HasSuffix(text[:end], s[:n]) {
				return true
			}
		}
	}
	return false
}

// What docs/security.md says can still show of a split key, and no more:
// of a key no view holds whole (another channel's text between its
// pieces, or its rest in an in-stream error), what follows the break; its
// start is masked as it ended a frame.
func TestFrameTextShowsOnlyTheDocumentedResidual(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	content := func(c record.Channel, text string) record.Frame {
		return record.Frame{Kind: record.KindContent, Channel: c, Text: text}
	}
	for _, c := range []struct {
		frames []record.Frame
		want   string
	}{
		{[]record.Frame{content(record.ChannelReasoning, key[:7]), content(record.ChannelText, "OK"), content(record.ChannelTool, key[7:])}, "*******OK" + key[7:]},
		{[]record.Frame{content(record.ChannelReasoning, key[:7]), content(record.ChannelReasoning, " hmm"), content(record.ChannelText, key[7:])}, "******* hmm" + key[7:]},
		{[]record.Frame{content(record.ChannelText, key[:7]), {Kind: record.KindError, Text: key[7:]}}, "*******" + key[7:]},
		// With nothing between, either view holds it whole.
		{[]record.Frame{content(record.ChannelReasoning, key[:7]), content(record.ChannelTool, key[7:])}, strings.Repeat("*", len(key))},
		{[]record.Frame{content(record.ChannelText, key[:7]), content(record.ChannelReasoning, "OK"), content(record.ChannelText, key[7:])}, "*******OK" + strings.Repeat("*", len(key)-7)},
	} {
		text := recordmask.NewFrameText(redact.NewMasker([]string{key}))
		var got strings.Builder
		for i := range c.frames {
			got.WriteString(text.Next(&c.frames[i]))
		}
		if got.String() != c.want {
			t.Errorf("%+v: %q, want %q", c.frames, got.String(), c.want)
		}
	}
}

// Masking a frame costs the read path no allocation when the request
// carries no credential (a nil masker), nor when the frame holds none of
// the request's: a content frame of the answer or the reasoning (its
// channel's view and all channels' view), or another frame's words.
func TestMaskingAFrameWithoutASecretAllocatesNothing(t *testing.T) {
	m := redact.NewMasker([]string{"sk-Zq7vXw9KpL3mNc8RtY2u-a-longer-key-than-32-bytes"})
	for name, m := range map[string]*redact.Masker{"no credential": nil, "none in the frame": m} {
		text := recordmask.NewFrameText(m)
		for _, f := range []record.Frame{
			{Kind: record.KindRaw, Text: " a token", Server: map[string]json.RawMessage{"usage": json.RawMessage(`{"completion_tokens":3}`)}},
			{Kind: record.KindContent, Text: " an answer"},
			{Kind: record.KindContent, Channel: record.ChannelReasoning, Text: " a thought"},
		} {
			want := f.Text
			if n := testing.AllocsPerRun(100, func() { text.Mask(&f) }); n != 0 || f.Text != want {
				t.Errorf("%s, %v %v frame: %v allocations a frame, text %q; want 0, unchanged", name, f.Kind, f.Channel, n, f.Text)
			}
		}
	}
}

// The cost masking adds to each content frame on the read path when the
// request carries a Bearer key (every value redact finds in it), a word a
// frame: a stream that reasons for 64 words and then answers for 128, and
// the worst case, one whose channel changes every frame (both views mask
// each frame).
func BenchmarkFrameTextMask(b *testing.B) {
	m := redact.NewMasker(redact.CredentialValues("Bearer sk-proj-" + strings.Repeat("Zq7vXw9KpL3mNc8R", 3)))
	words := strings.Fields("The quick brown fox jumps over the lazy dog and keeps on running")
	for name, reasoning := range map[string]func(i int) bool{
		"reasoning then answer": func(i int) bool { return i < 64 },
		"channel every frame":   func(i int) bool { return i%2 == 0 },
	} {
		b.Run(name, func(b *testing.B) {
			frames := make([]record.Frame, 192)
			for i := range frames {
				frames[i] = record.Frame{Kind: record.KindContent, Text: " " + words[i%len(words)]}
				if reasoning(i) {
					frames[i].Channel = record.ChannelReasoning
				}
			}
			text := recordmask.NewFrameText(m)
			b.ReportAllocs()
			for i := 0; b.Loop(); i++ {
				f := frames[i%len(frames)]
				text.Mask(&f)
			}
		})
	}
}
