package relay_test

import (
	"encoding/json"
	"fmt"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/driplab/drip/adapters"
	"github.com/driplab/drip/internal/redact"
	"github.com/driplab/drip/internal/relay"
	"github.com/driplab/drip/probe"
	"github.com/driplab/drip/record"
)

// An upstream that says the client's key split across frames past
// --max-frames, in the answer or begun in the reasoning: the record keeps
// the frames up to the bound, and the body it keeps (what fixtures serve
// --from sends back, every frame) has the key starred as drip run's text
// has it, split anywhere: decoded whole, it is the text with only the
// bytes before a split within the key's first redact.MinPrefix-1 bytes
// showing, and it holds no redact.MinPrefix bytes of the key in a row.
// Where the body escapes a piece of the key it is not kept, and
// exchange.removed says so.
func TestARecordMasksAKeySplitPastMaxFrames(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	event := map[record.Channel]string{
		record.ChannelText:      `data: {"choices":[{"index":0,"delta":{"content":%q}}]}` + "\n\n",
		record.ChannelReasoning: `data: {"choices":[{"index":0,"delta":{"reasoning_content":%q}}]}` + "\n\n",
	}
	for _, first := range []record.Channel{record.ChannelText, record.ChannelReasoning} {
		for _, at := range []int{1, 3, 4, 7, len(key) - 1} {
			for _, escaped := range []bool{false, true} {
				rest := key[at:] + " ok"
				if escaped {
					rest = key[at:] + `" ok`
				}
				said := fmt.Sprintf(event[record.ChannelText], "hello") + fmt.Sprintf(event[record.ChannelText], " there") +
					fmt.Sprintf(event[first], "key: "+key[:at]) + fmt.Sprintf(event[record.ChannelText], rest)
				rec, client := recordOne(t, relay.Options{MaxFrames: 2}, said, key)
				name := fmt.Sprintf("%v then the answer, split at %d, escaped %v", first, at, escaped)
				x := rec.Exchange
				if client != said || len(rec.Frames) != 2 || rec.Error == nil || rec.Error.Class != record.ErrLimit {
					t.Errorf("%s: the client got %q, the record %d frames, error %+v; want what was said, 2 frames, a limit error", name, client, len(rec.Frames), rec.Error)
				}
				for i := 0; i+redact.MinPrefix <= len(key); i++ {
					if w := key[i : i+redact.MinPrefix]; strings.Contains(x.Response, w) {
						t.Errorf("%s: the kept body holds %q of the key:\n%s", name, w, x.Response)
						break
					}
				}
				if removed := slices.Contains(x.Removed, "response (a credential split across frames)"); escaped {
					if !removed || x.Response != "" || len(x.Reads) != 0 {
						t.Errorf("%s: body %q, %d reads, removed %q; want the body and reads removed, and named", name, x.Response, len(x.Reads), x.Removed)
					}
					continue
				}
				shown := ""
				if at < redact.MinPrefix {
					shown = key[:at]
				}
				want := "hello therekey: " + shown + strings.Repeat("*", len(key)-len(shown)) + " ok"
				if got := servedText(t, x.Response); got != want {
					t.Errorf("%s: the kept body says %q, want %q", name, got, want)
				}
			}
		}
	}
}

// servedText is the text of every frame body decodes to, unbounded.
func servedText(t *testing.T, body string) string {
	var r record.Record
	if err := probe.DecodeReads(adapters.Auto, "text/event-stream", [][]byte{[]byte(body)}, []float64{0}, 0, 0, &r); err != nil {
		t.Fatalf("the kept body does not decode: %s", err.Message)
	}
	var b strings.Builder
	for _, f := range r.Frames {
		b.WriteString(f.Text)
	}
	return b.String()
}

// A body --max-bytes cuts off inside a key the upstream said (the client
// gets it all) is kept with the key's start masked at its end, as a
// frame's end is: of the n bytes of the key it holds, all are starred
// when n is redact.MinPrefix or more, none when fewer (the key's public
// "sk-").
func TestARecordMasksAKeyCutOffByMaxBytes(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	said := `data: {"choices":[{"index":0,"delta":{"content":"your key: ` + key + ` ok"}}]}` + "\n\n"
	start := strings.Index(said, key)
	for n := 1; n < len(key); n++ {
		rec, client := recordOne(t, relay.Options{MaxBytes: start + n}, said, key)
		kept := said[:start] + key[:n]
		if n >= redact.MinPrefix {
			kept = said[:start] + strings.Repeat("*", n)
		}
		if client != said || !rec.Exchange.Clipped || rec.Exchange.Response != kept {
			t.Errorf("%d bytes of the key kept: the client got %q, clipped %v, the body %q; want all, true, %q", n, client, rec.Exchange.Clipped, rec.Exchange.Response, kept)
		}
	}
}

// An upstream that says each token again in its logprobs (as a string and
// as UTF-8 bytes in numbers) while the model says the key split across
// frames: starring the frames' text does not reach those copies, so the
// body is not kept, and no 4 bytes of the key in a row are in the record.
// Logprobs with no key said keep their body.
func TestARecordKeepsNoBodyWhoseLogprobsSayASplitKey(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	chunk := func(tok string) string {
		nums := strings.Trim(strings.ReplaceAll(fmt.Sprint([]byte(tok)), " ", ","), "[]")
		return fmt.Sprintf(`data: {"choices":[{"index":0,"delta":{"content":%q},"logprobs":{"content":[{"token":%q,"logprob":-0.1,"bytes":[%s],"top_logprobs":[]}]}}]}`+"\n\n", tok, tok, nums)
	}
	for _, c := range []struct {
		pieces []string
		kept   bool
	}{
		{[]string{"key ", "sk-Zq", "7vXw9", "KpL3mNc8", "RtY2u", " ok"}, false},
		{[]string{"no ", "key ", "here"}, true},
	} {
		said := ""
		for _, p := range c.pieces {
			said += chunk(p)
		}
		rec, client := recordOne(t, relay.Options{}, said, key)
		b, _ := json.Marshal(rec)
		for i := 0; i+redact.MinPrefix <= len(key); i++ {
			if w := key[i : i+redact.MinPrefix]; strings.Contains(string(b), w) {
				t.Errorf("%q: the record holds %q of the key: %s", c.pieces, w, b)
				break
			}
		}
		x := rec.Exchange
		if client != said || (x.Response == said) != c.kept || slices.Contains(x.Removed, "response (a credential split across frames)") == c.kept {
			t.Errorf("%q: body kept %v, removed %q; want kept %v (the client got what was said: %v)", c.pieces, x.Response == said, x.Removed, c.kept, client == said)
		}
	}
}

// A body whose event says a frame's text in another field before the
// text itself (an id equal to the piece that begins the key): starring
// finds the field, not the text, so the starred copy does not decode to
// the masked frames, and it is not kept (a body served back with the key's
// start in its answer would be), and exchange.removed says so.
func TestARecordKeepsNoBodyStarredElsewhereThanItsText(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	begin := "key: " + key[:7]
	said := `data: {"choices":[{"index":0,"delta":{"content":"hello"}}]}` + "\n\n" +
		`data: {"id":"` + begin + `","choices":[{"index":0,"delta":{"content":"` + begin + `"}}]}` + "\n\n" +
		`data: {"choices":[{"index":0,"delta":{"content":"` + key[7:] + ` ok"}}]}` + "\n\n"
	rec, client := recordOne(t, relay.Options{MaxFrames: 2}, said, key)
	x := rec.Exchange
	if client != said || x.Response != "" || len(x.Reads) != 0 || !slices.Contains(x.Removed, "response (a credential split across frames)") {
		t.Errorf("the client got %q; the record keeps body %q, %d reads, removed %q; want what was said, no body, no reads, the body named removed", client, x.Response, len(x.Reads), x.Removed)
	}
}

// A key split across frames in the reads merged past --max-frames, none
// of it in a frame the record keeps, is starred in the kept body too.
func TestARecordMasksAKeySplitInTheMergedReads(t *testing.T) {
	const key = "sk-Zq7vXw9KpL3mNc8RtY2u"
	event := `data: {"choices":[{"index":0,"delta":{"content":%q}}]}` + "\n\n"
	hello := fmt.Sprintf(event, "hello")
	said := hello + fmt.Sprintf(event, " key: "+key[:9]) + fmt.Sprintf(event, key[9:]+" ok")
	rec, client := recordOne(t, relay.Options{Client: &http.Client{Transport: oneByteUpstream(said)}, MaxFrames: len(hello) + 1}, said, key)
	if client != said || len(rec.Frames) != 1 || rec.Error == nil || rec.Error.Class != record.ErrLimit {
		t.Errorf("the client got %q, the record %d frames, error %+v; want what was said, 1 frame, a limit error", client, len(rec.Frames), rec.Error)
	}
	if got, want := servedText(t, rec.Exchange.Response), "hello key: "+strings.Repeat("*", len(key))+" ok"; got != want {
		t.Errorf("the kept body says %q, want %q", got, want)
	}
}
